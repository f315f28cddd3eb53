import { randomInt } from 'node:crypto';
import { PermanentJobError } from '@svc/outbox';
import type { ChecksProvider, OcrAnswer } from './checks-provider.js';

export const SANDBOX_OUTCOMES = ['approve', 'reject', 'review', 'fail', 'expire'] as const;
export type SandboxOutcome = (typeof SANDBOX_OUTCOMES)[number];

/**
 * What a sandbox case should end as: the externalReference suffix `#approve`, `#reject`,
 * `#review`, `#fail` or `#expire` (case-insensitive), approve by default. Partners pick outcomes
 * from their own test data, as Stripe's and Onfido's test modes let them.
 */
export function sandboxOutcome(externalReference: string | null): SandboxOutcome {
  const suffix = /#([a-z]+)\s*$/i.exec(externalReference ?? '')?.[1]?.toLowerCase();
  return (SANDBOX_OUTCOMES as readonly string[]).includes(suffix ?? '') ? (suffix as SandboxOutcome) : 'approve';
}

const MODEL = { modelName: 'sandbox-simulator', modelVersion: '1.0' };

/**
 * The pass marks sandbox cases are judged by, whatever provider decides live cases: the
 * simulator's scores are written for these (review's 0.72 sits under the face threshold), and
 * a partner's test outcomes must not change when the operator tunes the live thresholds.
 */
export const SANDBOX_THRESHOLDS = { ocrConfidence: 0.85, faceSimilarity: 0.8, liveness: 0.8 } as const;
const randomDigits = (count: number) => Array.from({ length: count }, () => randomInt(10)).join('');

/**
 * Plausible answers for each outcome, never real inference: approve passes every threshold,
 * review leaves the face match between 0.5 and its threshold, reject reports a replay attack,
 * fail is a provider error that no retry fixes. (expire never reaches the provider.)
 */
export const sandboxSimulator: ChecksProvider = {
  name: 'sandbox-simulator',
  async ocr({ documentType, externalReference }): Promise<OcrAnswer> {
    if (sandboxOutcome(externalReference) === 'fail') throw new PermanentJobError('sandbox: simulated provider failure (#fail)');
    const passport = documentType === 'SyrianPassport';
    if (!passport) {
      // Shaped like the on-CPU reader's answer for the card's Arabic front: the fields it is sure of, and two left to confirm.
      return {
        ...MODEL,
        confidenceScore: 0.97,
        fields: { firstNameAr: 'سامر', surnameAr: 'الحلبي', motherNameAr: 'فاطمة', birthPlaceAr: 'دمشق', dateOfBirth: '1990-01-01', nationalNumber: `01${randomDigits(9)}` },
        fieldsToConfirm: ['fatherNameAr', 'civilRegistryAr'],
        mrzRawText: null,
        hasManipulationIndicators: false,
      };
    }
    return {
      ...MODEL,
      confidenceScore: 0.97,
      fields: {
        surname: 'SAMPLE',
        givenNames: 'TEST PERSON',
        // A fresh number each time: a repeated one would be flagged as a reused document.
        documentNumber: `N${randomDigits(8)}`,
        dateOfBirth: '1990-01-01',
        nationality: 'SYR',
        expiryDate: '2031-01-01',
      },
      mrzRawText: null,
      hasManipulationIndicators: false,
    };
  },
  async faceMatch({ externalReference }) {
    return { ...MODEL, similarityScore: sandboxOutcome(externalReference) === 'review' ? 0.72 : 0.94 };
  },
  async liveness({ externalReference }) {
    const attack = sandboxOutcome(externalReference) === 'reject';
    return { ...MODEL, livenessScore: attack ? 0.12 : 0.96, presentationAttackDetected: attack, attackType: attack ? 'replay' : null };
  },
};
