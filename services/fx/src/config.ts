import { baseServiceEnvironment, parseEnvironment, requireSecretsKeyWithDatabase } from '@svc/service-kit';
import type { z } from 'zod';

export const fxEnvironmentSchema = baseServiceEnvironment(3002).superRefine(requireSecretsKeyWithDatabase);

export type FxConfig = Readonly<z.output<typeof fxEnvironmentSchema>>;

export function loadFxConfig(env: Record<string, string | undefined> = process.env): FxConfig {
  return parseEnvironment(fxEnvironmentSchema, env);
}
