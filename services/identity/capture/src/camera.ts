import { useEffect, useRef, useState } from 'preact/hooks';

export type Facing = 'environment' | 'user';

/** What a step asks of the camera: stills want every pixel the phone has; the liveness video only what its check reads. */
export interface CameraSize {
  width: number;
  height: number;
  frameRate?: number;
}

const STILL_SIZE: CameraSize = { width: 1920, height: 1080 };

/**
 * The camera stream of one step, stopped when the step ends. `failed` means no camera at all
 * (none, denied, insecure context): the page then offers the file picker and the QR code.
 */
export function useCamera(facing: Facing, enabled: boolean, size: CameraSize = STILL_SIZE) {
  const video = useRef<HTMLVideoElement>(null);
  const [state, setState] = useState<'starting' | 'live' | 'failed'>(enabled ? 'starting' : 'failed');
  const stream = useRef<MediaStream | null>(null);

  useEffect(() => {
    if (!enabled) return undefined;
    let stopped = false;
    setState('starting');
    if (!navigator.mediaDevices?.getUserMedia) {
      setState('failed');
      return undefined;
    }
    navigator.mediaDevices
      .getUserMedia({
        video: { facingMode: facing, width: { ideal: size.width }, height: { ideal: size.height }, ...(size.frameRate ? { frameRate: { ideal: size.frameRate } } : {}) },
        audio: false,
      })
      .then(async (media) => {
        if (stopped) return media.getTracks().forEach((track) => track.stop());
        stream.current = media;
        if (video.current) {
          video.current.srcObject = media;
          await video.current.play().catch(() => undefined);
        }
        setState('live');
      })
      .catch(() => !stopped && setState('failed'));
    return () => {
      stopped = true;
      stream.current?.getTracks().forEach((track) => track.stop());
      stream.current = null;
    };
  }, [facing, enabled]);

  // The viewfinder is unmounted while a photo is shown back: a retake mounts a new <video>, which needs the stream again.
  useEffect(() => {
    const element = video.current;
    if (!element || !stream.current || element.srcObject === stream.current) return;
    element.srcObject = stream.current;
    void element.play().catch(() => undefined);
  });

  return { video, state, stream };
}

/** Whether this browser can use a camera at all; a refusal is found out when the stream is asked for. */
export const cameraSupported = () => typeof navigator.mediaDevices?.getUserMedia === 'function';
