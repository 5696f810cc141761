import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw message: headers, a blank line, the body. */
  raw: string;
  user: string | null;
}

export interface SmtpSink {
  /** `smtp://user:password@127.0.0.1:port` for WEIR_SMTP_URL. */
  url: string;
  mails: ReceivedMail[];
  /** Refuse the next `count` messages with a transient 451 (a retry must follow). */
  refuseNext(count: number): void;
  stop(): Promise<void>;
}

/**
 * A local SMTP server on 127.0.0.1 (no TLS: STARTTLS is not offered) that accepts one user and
 * keeps every message it receives.
 */
export async function startSmtpSink(user = "weir", password = "mail-secret-pw"): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  let refusals = 0;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    authMethods: ["PLAIN", "LOGIN"],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) callback(null, { user });
      else callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (refusals > 0) {
          refusals -= 1;
          const error = new Error("Try again later") as Error & { responseCode: number };
          error.responseCode = 451;
          callback(error);
          return;
        }
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString("utf8"),
          user: typeof session.user === "string" ? session.user : null,
        });
        callback();
      });
    },
  });
  const port = await new Promise<number>((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.server.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
  return {
    url: `smtp://${user}:${password}@127.0.0.1:${port}`,
    mails,
    refuseNext(count) {
      refusals = count;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
