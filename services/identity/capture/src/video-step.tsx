import { useEffect, useState } from 'preact/hooks';
import type { LivenessChallenge } from './capture-api.js';
import { type CameraSize, useCamera } from './camera.js';
import { useMessages } from './messages.js';

const COUNTDOWN_SECONDS = 3;

/**
 * What the liveness check reads, and no more: it samples 10 frames a second with the longer side
 * scaled to at most 640 px, for at most the challenge's seconds. 640×480 at 15 fps and 600 kbit/s keeps
 * a blink and a head turn sharp in VP8 and makes a 6-second clip about 450 KB, which a 25 KB/s uplink
 * sends in under 20 s; the camera's default (1080p at 2.5 Mbit/s) made it about 1.9 MB.
 */
const RECORDING_SIZE: CameraSize = { width: 640, height: 480, frameRate: 15 };
const RECORDING_BITS_PER_SECOND = 600_000;

function recorderType(): string {
  for (const type of ['video/webm;codecs=vp8', 'video/webm', 'video/mp4']) if (MediaRecorder.isTypeSupported(type)) return type;
  return '';
}

/** Seconds to record: the checks' maximum, the only length at which a person who holds still is not taken for a photo. */
export const recordingSeconds = (challenge: LivenessChallenge) => challenge.maxDurationSeconds;

interface VideoStepProps {
  challenge: LivenessChallenge;
  useCamera: boolean;
  busy: boolean;
  onConfirm: (video: Blob, fileName: string) => void;
  onNoCamera: () => void;
}

/** The liveness video: the motion said and shown, a countdown, then MediaRecorder for the length the checks need. */
export function VideoStep(props: VideoStepProps) {
  const t = useMessages();
  const camera = useCamera('user', props.useCamera, RECORDING_SIZE);
  const [phase, setPhase] = useState<{ kind: 'ready' } | { kind: 'countdown' | 'recording'; left: number } | { kind: 'recorded'; blob: Blob; url: string; name: string }>({ kind: 'ready' });

  useEffect(() => {
    if (camera.state === 'failed') props.onNoCamera();
  }, [camera.state]);
  useEffect(() => () => (phase.kind === 'recorded' ? URL.revokeObjectURL(phase.url) : undefined), [phase]);

  async function record() {
    const stream = camera.stream.current;
    if (!stream) return;
    for (let left = COUNTDOWN_SECONDS; left > 0; left -= 1) {
      setPhase({ kind: 'countdown', left });
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const type = recorderType();
    const recorder = new MediaRecorder(stream, type ? { mimeType: type, videoBitsPerSecond: RECORDING_BITS_PER_SECOND } : { videoBitsPerSecond: RECORDING_BITS_PER_SECOND });
    const chunks: Blob[] = [];
    recorder.ondataavailable = (event) => event.data.size > 0 && chunks.push(event.data);
    const stopped = new Promise<void>((resolve) => (recorder.onstop = () => resolve()));
    recorder.start(500);
    const seconds = recordingSeconds(props.challenge);
    for (let left = seconds; left > 0; left -= 1) {
      setPhase({ kind: 'recording', left });
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    recorder.stop();
    await stopped;
    const blob = new Blob(chunks, { type: recorder.mimeType || type || 'video/webm' });
    const name = blob.type.includes('mp4') ? 'liveness.mp4' : 'liveness.webm';
    setPhase({ kind: 'recorded', blob, url: URL.createObjectURL(blob), name });
  }

  function choose(event: Event) {
    const file = (event.currentTarget as HTMLInputElement).files?.[0];
    if (file) props.onConfirm(file, file.name);
  }

  const live = props.useCamera && camera.state !== 'failed';
  return (
    <div class="still">
      <div class="motion" aria-hidden="true">
        <span class="head" />
      </div>
      <p class="mode" data-testid="capture-mode" data-mode={live ? 'camera' : 'file'}>
        {live ? t('cameraInUse') : t('filePickerInUse')}
      </p>
      {phase.kind === 'recorded' ? (
        <>
          <video class="preview" src={phase.url} controls muted playsInline />
          <div class="actions">
            <button type="button" class="button" onClick={() => setPhase({ kind: 'ready' })} disabled={props.busy}>
              {t('recordAgain')}
            </button>
            <button type="button" class="button button-primary" onClick={() => props.onConfirm(phase.blob, phase.name)} disabled={props.busy} data-testid="confirm-video">
              {t('useVideo')}
            </button>
          </div>
        </>
      ) : live ? (
        <>
          <div class="viewfinder viewfinder-face">
            <video ref={camera.video} muted playsInline autoPlay class="mirrored" />
            <div class="guide" aria-hidden="true" />
            {phase.kind !== 'ready' ? (
              <p class="countdown" role="status" aria-live="assertive" data-testid="recording-phase" data-phase={phase.kind}>
                {phase.kind === 'countdown' ? t('countdown', { n: phase.left }) : t('recording', { n: phase.left })}
              </p>
            ) : null}
          </div>
          <div class="actions">
            <button type="button" class="button button-primary" onClick={() => void record()} disabled={camera.state !== 'live' || phase.kind !== 'ready'} data-testid="record">
              {t('recordStart')}
            </button>
          </div>
        </>
      ) : (
        <div class="actions">
          <label class="button button-primary file-button">
            {t('chooseVideo')}
            <input type="file" accept="video/*" capture="user" onChange={choose} data-testid="choose-video" />
          </label>
        </div>
      )}
    </div>
  );
}
