/**
 * On-CPU OCR of the machine-readable zone: "MRZ read with ICAO 9303 check-digit validation".
 * It proves that the MRZ's numbers are consistent; it does not establish that a document is
 * authentic.
 */
export { createOcrEngine, OCR_MODEL, type OcrEngine, type OcrEngineOptions } from './engine.js';
export { ocrModelProblems } from './model-files.js';
