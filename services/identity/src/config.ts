import { baseServiceEnvironment, parseEnvironment, requireSecretsKeyWithDatabase } from '@svc/service-kit';
import type { z } from 'zod';

export const identityEnvironmentSchema = baseServiceEnvironment(3001).superRefine(requireSecretsKeyWithDatabase);

export type IdentityConfig = Readonly<z.output<typeof identityEnvironmentSchema>>;

export function loadIdentityConfig(env: Record<string, string | undefined> = process.env): IdentityConfig {
  return parseEnvironment(identityEnvironmentSchema, env);
}
