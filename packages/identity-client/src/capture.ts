import { throwOnError } from '@svc/client-core';
import createClient from 'openapi-fetch';
import { Agent } from 'undici';
import { fetchThrough } from './mtls-fetch.js';
import type { EvidenceRecord, EvidenceType, operations, paths } from './types.js';

type CaptureStatus = operations['getCaptureStatus']['responses'][200]['content']['application/json'];
type SubmitResult = operations['submitCapture']['responses'][200]['content']['application/json'];

export interface CaptureSession {
  /** Uploads one piece of evidence (a document side, the selfie or the liveness video). */
  upload(evidenceType: EvidenceType, bytes: Uint8Array, fileName: string): Promise<EvidenceRecord>;
  /** What was uploaded, what is missing, and the case's status. */
  status(): Promise<CaptureStatus>;
  /** Hands the evidence over for the automated checks. */
  submit(): Promise<SubmitResult>;
  close(): Promise<void>;
}

/**
 * The end user's side of a case (`/api/capture/v1`), for server-driven capture and for tests
 * of an integration: exchanges the one-time session token a case was created with for a
 * capture token, then uploads and submits. No client certificate: this side is public.
 */
export async function openCaptureSession(options: { baseUrl: string; sessionToken: string; ca?: string | Buffer | (string | Buffer)[] }): Promise<CaptureSession> {
  const agent = new Agent(options.ca ? { connect: { ca: options.ca } } : {});
  const api = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), fetch: fetchThrough(agent) });
  api.use(throwOnError);
  try {
    const { data: session } = await api.POST('/api/capture/v1/session', { headers: { authorization: `Bearer ${options.sessionToken}` } });
    const authorization = `Bearer ${session!.captureToken}`;
    return {
      async upload(evidenceType, bytes, fileName) {
        const form = new FormData();
        form.append('evidenceType', evidenceType);
        form.append('file', new Blob([bytes]), fileName);
        // The multipart body is not described in the document (it streams), so it is passed through as is.
        const { data } = await api.POST('/api/capture/v1/evidence', { headers: { authorization }, body: form as never, bodySerializer: (body: unknown) => body });
        return data!;
      },
      async status() {
        return (await api.GET('/api/capture/v1/status', { headers: { authorization } })).data!;
      },
      async submit() {
        return (await api.POST('/api/capture/v1/submit', { headers: { authorization }, body: {} })).data!;
      },
      close: () => agent.close(),
    };
  } catch (error) {
    await agent.close();
    throw error;
  }
}
