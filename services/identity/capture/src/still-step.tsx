import { useEffect, useRef, useState } from 'preact/hooks';
import { useCamera, type Facing } from './camera.js';
import { documentGuideRegion, wholeFrame, type Region } from './document-guide-region.js';
import { downscaledJpeg, frameProblem, type FrameProblem } from './frame-quality.js';
import { useMessages } from './messages.js';

interface StillStepProps {
  facing: Facing;
  /** Longer side of the uploaded JPEG. */
  maxSide: number;
  guide: 'document' | 'face';
  useCamera: boolean;
  /** A retake asked for by the server after the last upload. */
  serverProblem: string | null;
  busy: boolean;
  onConfirm: (photo: Blob) => void;
  onNoCamera: () => void;
}

/** Take (or choose) a still, refuse an obviously unusable one at once, show it back for confirmation. */
export function StillStep(props: StillStepProps) {
  const t = useMessages();
  const camera = useCamera(props.facing, props.useCamera);
  const [photo, setPhoto] = useState<{ blob: Blob; url: string } | null>(null);
  const [problem, setProblem] = useState<FrameProblem | 'unreadableImage' | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const guide = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (camera.state === 'failed') props.onNoCamera();
  }, [camera.state]);
  useEffect(() => () => photo && URL.revokeObjectURL(photo.url), [photo]);
  useEffect(() => {
    // The server refused the last one: back to the camera for a retake.
    if (props.serverProblem) setPhoto(null);
  }, [props.serverProblem]);

  async function accept(source: CanvasImageSource, region: Region) {
    const found = frameProblem(source, region);
    setProblem(found);
    if (found) return;
    const blob = await downscaledJpeg(source, region, props.maxSide);
    setPhoto({ blob, url: URL.createObjectURL(blob) });
  }

  /** A document is sent as the part inside its guide, as laid out over the video now; a selfie whole (the face check finds the face). */
  function cameraRegion(video: HTMLVideoElement): Region {
    if (props.guide !== 'document' || !guide.current) return wholeFrame(video.videoWidth, video.videoHeight);
    const view = video.getBoundingClientRect();
    const drawn = guide.current.getBoundingClientRect();
    return documentGuideRegion(video.videoWidth, video.videoHeight, view.width, view.height, { x: drawn.left - view.left, y: drawn.top - view.top, width: drawn.width, height: drawn.height });
  }

  async function takePhoto() {
    const video = camera.video.current;
    if (!video || video.videoWidth === 0) return;
    await accept(video, cameraRegion(video));
  }

  async function choose(event: Event) {
    const file = (event.currentTarget as HTMLInputElement).files?.[0];
    (event.currentTarget as HTMLInputElement).value = '';
    if (!file) return;
    try {
      const bitmap = await createImageBitmap(file);
      await accept(bitmap, wholeFrame(bitmap.width, bitmap.height));
      bitmap.close();
    } catch {
      setProblem('unreadableImage');
    }
  }

  const live = props.useCamera && camera.state !== 'failed';
  return (
    <div class="still">
      {photo ? (
        <>
          <img class="preview" src={photo.url} alt="" />
          <p>{t('checkPhoto')}</p>
          <div class="actions">
            <button type="button" class="button" onClick={() => setPhoto(null)} disabled={props.busy}>
              {t('retake')}
            </button>
            <button type="button" class="button button-primary" onClick={() => props.onConfirm(photo.blob)} disabled={props.busy} data-testid="confirm-photo">
              {t('usePhoto')}
            </button>
          </div>
        </>
      ) : (
        <>
          <p class="mode" data-testid="capture-mode" data-mode={live ? 'camera' : 'file'}>
            {live ? t('cameraInUse') : t('filePickerInUse')}
          </p>
          {live ? (
            <div class={`viewfinder viewfinder-${props.guide}`}>
              <video ref={camera.video} muted playsInline autoPlay class={props.facing === 'user' ? 'mirrored' : ''} />
              <div ref={guide} class="guide" aria-hidden="true" />
            </div>
          ) : null}
          {props.serverProblem || problem ? (
            <p class="notice notice-error" role="alert" data-testid="frame-problem" data-problem={props.serverProblem ? 'server' : problem}>
              {props.serverProblem ?? t(problem!)}
            </p>
          ) : null}
          <div class="actions">
            {live ? (
              <button type="button" class="button button-primary" onClick={() => void takePhoto()} disabled={camera.state !== 'live'} data-testid="take-photo">
                {t('takePhoto')}
              </button>
            ) : (
              <label class="button button-primary file-button">
                {t('choosePhoto')}
                <input ref={input} type="file" accept="image/*" capture={props.facing} onChange={(event) => void choose(event)} data-testid="choose-photo" />
              </label>
            )}
          </div>
        </>
      )}
    </div>
  );
}
