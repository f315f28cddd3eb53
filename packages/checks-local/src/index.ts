export * from './contract.js';
export { ChecksUnavailableError, createLocalChecks, type LocalChecksModels, type LocalChecksOptions, type LocalChecksProvider, type LocalChecksStatus, type QualityHints } from './provider.js';
export { FACE_MODEL, LIVENESS_MODEL, RECOMMENDED_FACE_THRESHOLD, RECOMMENDED_LIVENESS_THRESHOLD } from './face/index.js';
export { OCR_MODEL } from './ocr/index.js';
export { imageDimensions, type ImageDimensions } from './face/image-dimensions.js';
export { compareArabicLatin, nameDisagreements, type NameAgreement, type NameDisagreement } from './arabic/name-agreement.js';
