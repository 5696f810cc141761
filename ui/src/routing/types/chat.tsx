import { Field } from "../../kit/field.tsx";
import { type DestinationTypeForm, type Draft, type TypeFieldsProps, text } from "./fields.ts";

function webhookFields(platform: string) {
  return function WebhookFields({ draft, set, errors, secretHint }: TypeFieldsProps) {
    return (
      <Field
        label={`${platform} webhook URL`}
        name="webhook_url"
        required
        value={text(draft, "webhook_url")}
        hint={`The incoming webhook ${platform} gave you. ${secretHint}`}
        errors={errors.webhook_url}
        onInput={(v) => set("webhook_url", v)}
      />
    );
  };
}

const webhookBody = (draft: Draft) => ({ webhook_url: text(draft, "webhook_url") });

export const slack: DestinationTypeForm = {
  label: "Slack",
  Fields: webhookFields("Slack"),
  blank: { webhook_url: "" },
  body: webhookBody,
};

export const discord: DestinationTypeForm = {
  label: "Discord",
  Fields: webhookFields("Discord"),
  blank: { webhook_url: "" },
  body: webhookBody,
};

function TelegramFields({ draft, set, errors, secretHint }: TypeFieldsProps) {
  return (
    <>
      <Field
        label="Bot token"
        name="bot_token"
        required
        value={text(draft, "bot_token")}
        hint={`Best kept as a secret. ${secretHint}`}
        errors={errors.bot_token}
        onInput={(v) => set("bot_token", v)}
      />
      <Field
        label="Chat id"
        name="chat_id"
        required
        value={text(draft, "chat_id")}
        errors={errors.chat_id}
        onInput={(v) => set("chat_id", v)}
      />
    </>
  );
}

export const telegram: DestinationTypeForm = {
  label: "Telegram",
  Fields: TelegramFields,
  blank: { bot_token: "", chat_id: "" },
  body: (draft) => ({ bot_token: text(draft, "bot_token"), chat_id: text(draft, "chat_id") }),
};
