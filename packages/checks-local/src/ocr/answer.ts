/**
 * From the merged MRZ and the visual-zone check to the OcrAnswer identity stores, with a
 * confidence that says how much of the read is proven. The tiers are deliberate: only a read
 * whose every check digit passes, whose country codes are real ICAO codes and whose names are
 * confirmed (by the printed page or by both engines) scores above identity's 0.8 threshold.
 */
import { parse } from 'mrz';
import type { OcrAnswer } from '../contract.js';
import { fieldsFrom } from './mrz-fields.js';
import type { MrzLayout } from './mrz-layout.js';
import type { MergedMrz } from './mrz-merge.js';
import type { VisualZoneCheck } from './visual-zone.js';

export interface ReadAssessment {
  /** Every check digit passes, the dates are real dates and both country codes are ICAO codes. */
  mrzValid: boolean;
  namesConfirmed: boolean;
  confidenceScore: number;
}

function mrzParsesValid(lines: readonly string[]): boolean {
  try {
    return parse([...lines]).valid;
  } catch {
    return false;
  }
}

export function assessRead(merged: MergedMrz, visual: VisualZoneCheck | null): ReadAssessment {
  const digits = Object.values(merged.checkDigits);
  const digitShare = digits.filter(Boolean).length / digits.length;
  const countriesKnown = ['issuingState', 'nationality'].every((field) => merged.status[field] === 'agreed' || merged.status[field] === 'resolved');
  const unsettled = Object.values(merged.status).some((status) => status === 'conflict');
  const mrzValid = digitShare === 1 && countriesKnown && !unsettled && mrzParsesValid(merged.lines);
  const namesConfirmed = merged.namesAgree || (visual?.namesConfirmed ?? false);
  let confidenceScore: number;
  if (mrzValid && namesConfirmed) confidenceScore = 0.9 + 0.09 * merged.engineAgreement;
  else if (mrzValid) confidenceScore = 0.7; // numbers proven, names not: a person confirms them
  else if (digitShare === 1) confidenceScore = 0.6; // digits pass, but a country code or a field is unsettled
  else confidenceScore = 0.5 * digitShare;
  return { mrzValid, namesConfirmed, confidenceScore: Math.round(confidenceScore * 1000) / 1000 };
}

export function buildAnswer(input: { merged: MergedMrz; layout: MrzLayout; visual: VisualZoneCheck | null; model: { name: string; version: string }; today: Date }): OcrAnswer {
  const { merged, layout, visual, model, today } = input;
  const assessment = assessRead(merged, visual);
  return {
    modelName: model.name,
    modelVersion: model.version,
    confidenceScore: assessment.confidenceScore,
    fields: fieldsFrom(merged.lines, layout, today),
    mrzRawText: merged.lines.join('\n'),
    // Only a contradiction between the MRZ and the printed page of the same document; see visual-zone.ts.
    hasManipulationIndicators: assessment.mrzValid && (visual?.contradictions.length ?? 0) > 0,
  };
}
