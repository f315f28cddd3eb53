import type * as Canvas from '@napi-rs/canvas';

type CanvasModule = typeof Canvas;

let loaded: CanvasModule | undefined;

/**
 * @napi-rs/canvas, loaded by the first image decoded rather than when a service that imports
 * these checks starts: the native module takes tens of milliseconds to open.
 */
export async function loadCanvas(): Promise<CanvasModule> {
  // Node loads a module once; concurrent first calls share that load.
  loaded ??= await import('@napi-rs/canvas');
  return loaded;
}

/** The module, for code that runs only on an image loadCanvas() already decoded. */
export function loadedCanvas(): CanvasModule {
  if (!loaded) throw new Error('@napi-rs/canvas is used before an image was decoded with it');
  return loaded;
}
