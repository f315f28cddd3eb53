import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server on loopback for tests: AUTH required, STARTTLS offered (the mailer's
 * requireTLS refuses to go on without it), every accepted message parsed with mailparser.
 * stop() and start() again on the same port stand in for an outage.
 */
export interface SmtpSink {
  readonly port: number;
  /** smtp://user:pass@127.0.0.1:port */
  readonly url: string;
  readonly messages: ParsedMail[];
  /** Sessions that authenticated (to tell STARTTLS and AUTH were used). */
  readonly sessions: { secure: boolean; user: string | undefined }[];
  /** The certificate it offers in STARTTLS: the transport's `ca`. */
  readonly certPem: string;
  /**
   * From now on each message is read whole but its DATA is not answered, as a server that
   * stalls after the final dot: the sender cannot know whether it was accepted. Lets a test
   * tell that a send is in flight (held > 0) and crash the sender there.
   */
  holdData(): void;
  /** Messages read and waiting for their DATA reply; one whose sender disconnects is dropped (never accepted). */
  readonly held: number;
  /** Accepts the held messages and stops holding. */
  releaseData(): void;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** A self-signed P-256 certificate for localhost and 127.0.0.1, made with the openssl command a test machine has. */
export function selfSignedLoopbackCertificate(): { certPem: string; keyPem: string } {
  const directory = mkdtempSync(join(tmpdir(), 'smtp-sink-'));
  try {
    const [key, cert] = [join(directory, 'key.pem'), join(directory, 'cert.pem')];
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
    return { certPem: readFileSync(cert, 'utf8'), keyPem: readFileSync(key, 'utf8') };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Without a certificate, one from selfSignedLoopbackCertificate(). */
export async function startSmtpSink(options: { certPem?: string; keyPem?: string; user?: string; password?: string; port?: number } = {}): Promise<SmtpSink> {
  const tls = options.certPem && options.keyPem ? { certPem: options.certPem, keyPem: options.keyPem } : selfSignedLoopbackCertificate();
  const user = options.user ?? 'mailer';
  const password = options.password ?? 'mailer-secret';
  const messages: ParsedMail[] = [];
  const sessions: SmtpSink['sessions'] = [];
  let server: SMTPServer | undefined;
  let port = options.port ?? 0;
  let holding = false;
  const held: { sessionId: string; message: ParsedMail; answer: () => void }[] = [];

  const create = () =>
    new SMTPServer({
      secure: false,
      cert: tls.certPem,
      key: tls.keyPem,
      authMethods: ['PLAIN', 'LOGIN'],
      logger: false,
      onAuth(auth, session, callback) {
        if (auth.username === user && auth.password === password) {
          sessions.push({ secure: session.secure, user: auth.username });
          callback(null, { user: auth.username });
        } else callback(new Error('Invalid username or password'));
      },
      onClose(session) {
        // A sender gone before its DATA reply: the message was never accepted, as on a real server.
        for (let index = held.length - 1; index >= 0; index--) if (held[index]?.sessionId === session.id) held.splice(index, 1);
      },
      onData(stream, session, callback) {
        simpleParser(stream)
          .then((parsed) => {
            if (holding) held.push({ sessionId: session.id, message: parsed, answer: () => callback() });
            else {
              messages.push(parsed);
              callback();
            }
          })
          .catch((error: Error) => callback(error));
      },
    });

  const start = async () => {
    server = create();
    const listening = server;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', () => resolve());
    });
    port = (listening.server.address() as AddressInfo).port;
  };
  await start();
  return {
    get port() {
      return port;
    },
    get url() {
      return `smtp://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
    },
    messages,
    sessions,
    certPem: tls.certPem,
    holdData() {
      holding = true;
    },
    get held() {
      return held.length;
    },
    releaseData() {
      holding = false;
      for (const { message, answer } of held.splice(0)) {
        messages.push(message);
        answer();
      }
    },
    start,
    async stop() {
      const closing = server;
      server = undefined;
      if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
  };
}
