// The outbox's "status_mail" kind: a mail owed to a page's subscriber, sent through the operator's
// mail server with the one-click unsubscribe headers of RFC 8058.
import { type Mailer, mailAttempt } from "../alerts/alerts.mailer.ts";
import type { DeliveryKindHandlers, DeliveryRecord, Prepared } from "../delivery/delivery.ports.ts";
import type { StatusPagesStore } from "./status-pages.store.ts";
import { type SubscriberLinksDeps, unsubscribeUrlOf } from "./status-pages.subscribers.service.ts";

/** What sending needs: the mail, its page and the signer of its unsubscribe link. */
export type MailSendDeps = SubscriberLinksDeps & { pages: Pick<StatusPagesStore, "find"> };

const nothingOwed: Prepared = { skip: "filtered" };

async function prepare(
  delivery: DeliveryRecord,
  deps: MailSendDeps,
  mailer: Mailer | null,
): Promise<Prepared> {
  const mail = await deps.store.findMail(delivery.subjectId);
  // Unsubscribed, deleted or the page gone: the mail is no longer owed.
  if (!mail || delivery.organizationId === null) return nothingOwed;
  const { subscriber } = mail;
  // Double opt-in: an unconfirmed address gets its confirmation and nothing else.
  if (mail.kind !== "confirm" && subscriber.confirmedAt === null) return nothingOwed;
  const page = await deps.pages.find(delivery.organizationId, subscriber.statusPageId);
  if (!page) return nothingOwed;
  const message = {
    to: [subscriber.email],
    subject: mail.subject,
    text: mail.body,
    headers: {
      "List-Unsubscribe": `<${unsubscribeUrlOf(subscriber, page, deps)}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    },
  };
  return mailAttempt(mailer, message);
}

/** The handlers the status pages room registers for the outbox's "status_mail" kind. */
export function statusMailHandlers(
  deps: MailSendDeps,
  mailer: Mailer | null,
): DeliveryKindHandlers {
  return {
    prepare: (delivery) => prepare(delivery, deps, mailer),
  };
}
