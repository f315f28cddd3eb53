import { describe, expect, it } from 'vitest';
import { fraudSignalsOf } from '../src/domain/checks/decide-case.js';

const model = { modelName: 'm', modelVersion: '1' };
const liveness = { ...model, livenessScore: 0.95, presentationAttackDetected: false, attackType: null };
const passport = (fields: Record<string, string>) => ({ ...model, confidenceScore: 0.95, fields, mrzRawText: null, hasManipulationIndicators: false });
const now = new Date('2026-11-28T12:00:00Z');

describe('Arabic/Latin name agreement on a passport', () => {
  it('raises name_mismatch with both spellings when the Arabic names clearly contradict the MRZ', () => {
    const signals = fraudSignalsOf(passport({ surname: 'HADDAD', givenNames: 'KHALED', surnameAr: 'الشامي', firstNameAr: 'محمد' }), liveness, now);
    const mismatches = signals.filter((signal) => signal.type === 'name_mismatch');
    expect(mismatches).toHaveLength(2);
    expect(mismatches[0]).toMatchObject({ severity: 'medium', detail: expect.stringContaining('محمد') });
    expect(mismatches[0]!.detail).toContain('KHALED');
    expect(mismatches[1]!.detail).toContain('الشامي');
    expect(mismatches[1]!.detail).toContain('HADDAD');
  });
  it('raises nothing for the usual transliterations, abbreviations included', () => {
    for (const [firstNameAr, givenNames, surnameAr, surname] of [
      ['محمد', 'MHD SAMER', 'درويش', 'DARWICH'],
      ['فاطمة', 'FATMEH', 'الحلبي', 'ALHALABI'],
      ['عبد الرحمن', 'ABDURRAHMAN', 'قصاب', 'QASSAB'],
    ]) {
      expect(fraudSignalsOf(passport({ firstNameAr: firstNameAr!, givenNames: givenNames!, surnameAr: surnameAr!, surname: surname! }), liveness, now)).toEqual([]);
    }
  });
  it('raises nothing when a comparison is uncertain or a side is missing', () => {
    expect(fraudSignalsOf(passport({ firstNameAr: 'وائل', givenNames: 'ALI', surname: 'NASR' }), liveness, now)).toEqual([]);
    expect(fraudSignalsOf(passport({ surname: 'NASR', givenNames: 'OMAR' }), liveness, now)).toEqual([]);
  });
});
