// Sends alert mail through the operator's SMTP server (WEIR_SMTP_URL). The outcome is shaped like
// an HTTP send's, so the outbox records, retries and shows a mail attempt as it does any other.
// The outbound address policy does not apply: the operator chose this server, as they choose the
// DNS resolver, and it is commonly on the private network (mail.lan).
import nodemailer from "nodemailer";
import type { Prepared } from "../delivery/delivery.ports.ts";
import type { OutboundRequest, OutboundResult } from "../http/outbound/outbound.model.ts";
import type { Concealment } from "../shared/conceal.ts";
import { MASK } from "../shared/conceal.ts";
import type { EmailMessage } from "./alerts.email.ts";

export interface Mailer {
  /** The server as attempts show it: scheme, host and port, never the credentials. */
  target: string;
  /** The SMTP password as an attempt's record must never show it. */
  concealed: Concealment[];
  /** Sends one mail; never throws: a refusal or a network failure is the result's `error`. */
  send(message: EmailMessage, timeoutMs: number): Promise<OutboundResult>;
}

/** The header-ish lines an attempt records for a mail (the body is the mail's text). */
export const mailAsRequest = (
  message: EmailMessage,
): Pick<OutboundRequest, "headers" | "body"> => ({
  headers: [
    ["to", message.to.join(", ")],
    ["subject", message.subject],
  ],
  body: message.text,
});

const noMailServer: Prepared = {
  fail: {
    errorType: "network_error",
    errorCode: "smtp_not_configured",
    message: "the server has no mail settings (WEIR_SMTP_URL, WEIR_SMTP_FROM)",
    // Setting them and restarting lets a later attempt succeed.
    retryable: true,
  },
};

/**
 * An outbox attempt that sends `message` through the operator's mail server, recorded like a
 * request to it (alerts and status page subscribers alike).
 */
export function mailAttempt(mailer: Mailer | null, message: EmailMessage): Prepared {
  if (!mailer) return noMailServer;
  const { headers, body } = mailAsRequest(message);
  return {
    send: {
      url: mailer.target,
      method: "SMTP",
      headers: [...(headers ?? [])],
      body: typeof body === "string" ? body : "",
      signingSecrets: [],
      concealed: mailer.concealed,
      sendWith: (request) => mailer.send(message, request.timeoutMs ?? 30_000),
    },
  };
}

/** The network codes of decisions §8, from nodemailer's and the socket's error codes. */
function classify(error: { code?: string; responseCode?: number; message?: string }): string {
  // nodemailer reports a socket failure as ESOCKET with the socket's own code in the message.
  const socketCode = /\b(ECONNREFUSED|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|ECONNRESET)\b/.exec(
    error.message ?? "",
  )?.[1];
  switch (error.code === "ESOCKET" && socketCode ? socketCode : error.code) {
    case "ECONNREFUSED":
      return "connection_refused";
    case "ETIMEDOUT":
    case "ETIMEOUT":
      return "timeout";
    case "EDNS":
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "dns_failure";
    case "ETLS":
      return "tls_error";
    case "ESOCKET":
    case "ECONNRESET":
    case "ECONNECTION":
      return "connection_reset";
    default:
      return error.responseCode ? `smtp_${error.responseCode}` : "unknown";
  }
}

/** A mailer for the configured server, or null when mail is not configured. */
export function createMailer(smtpUrl: string, from: string): Mailer | null {
  if (smtpUrl === "" || from === "") return null;
  const url = new URL(smtpUrl);
  const password = decodeURIComponent(url.password);
  const target = `${url.protocol}//${url.host}`;
  const transports = new Map<number, ReturnType<typeof nodemailer.createTransport>>();
  const transportFor = (timeoutMs: number) => {
    let transport = transports.get(timeoutMs);
    if (!transport) {
      transport = nodemailer.createTransport({
        url: smtpUrl,
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs,
      } as Parameters<typeof nodemailer.createTransport>[0]);
      transports.set(timeoutMs, transport);
    }
    return transport;
  };
  return {
    target,
    concealed: password === "" ? [] : [[password, MASK]],
    async send(message, timeoutMs) {
      const startedAt = performance.now();
      const done = (status: number | null, text: string, error: OutboundResult["error"]) => ({
        url: target,
        status,
        headers: [],
        body: new TextEncoder().encode(text),
        bodyTruncated: false,
        latencyMs: Math.round(performance.now() - startedAt),
        error,
      });
      try {
        const info = await transportFor(timeoutMs).sendMail({
          from,
          to: message.to,
          subject: message.subject,
          // SMTP lines end in CRLF; a bare LF is refused by strict servers.
          text: message.text.replace(/\r?\n/g, "\r\n"),
          ...(message.headers ? { headers: message.headers } : {}),
        });
        const refused = (info.rejected ?? []).map(String);
        if (refused.length === message.to.length) {
          const text = `every recipient was refused: ${refused.join(", ")}`;
          return done(null, text, { type: "network_error", code: "smtp_rejected", message: text });
        }
        return done(250, String(info.response ?? ""), null);
      } catch (thrown) {
        const error = thrown as Error & { code?: string; responseCode?: number };
        const code = classify(error);
        const status = error.responseCode ?? null;
        return done(status, "", {
          type:
            code === "smtp_535" || error.code === "EAUTH"
              ? "authentication_error"
              : "network_error",
          code: error.code === "EAUTH" ? "smtp_auth_failed" : code,
          message: `mail not sent: ${error.message}`,
        });
      }
    },
  };
}
