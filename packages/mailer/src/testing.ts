import type { AddressInfo } from 'node:net';
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
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startSmtpSink(options: { certPem: string; keyPem: string; user?: string; password?: string; port?: number }): Promise<SmtpSink> {
  const user = options.user ?? 'mailer';
  const password = options.password ?? 'mailer-secret';
  const messages: ParsedMail[] = [];
  const sessions: SmtpSink['sessions'] = [];
  let server: SMTPServer | undefined;
  let port = options.port ?? 0;

  const create = () =>
    new SMTPServer({
      secure: false,
      cert: options.certPem,
      key: options.keyPem,
      authMethods: ['PLAIN', 'LOGIN'],
      logger: false,
      onAuth(auth, session, callback) {
        if (auth.username === user && auth.password === password) {
          sessions.push({ secure: session.secure, user: auth.username });
          callback(null, { user: auth.username });
        } else callback(new Error('Invalid username or password'));
      },
      onData(stream, _session, callback) {
        simpleParser(stream)
          .then((parsed) => {
            messages.push(parsed);
            callback();
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
    start,
    async stop() {
      const closing = server;
      server = undefined;
      if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
  };
}
