import { useState } from "preact/hooks";
import { ConfirmDialog } from "../kit/confirm-dialog.tsx";
import { Field } from "../kit/field.tsx";
import { Notice } from "../kit/notice.tsx";
import { ApiError, errorText } from "../lib/api.ts";
import { useApp } from "../lib/context.ts";
import type { Member, Role } from "../lib/types.ts";
import { useData } from "../lib/use-load.ts";

const ROLES: { value: Role; label: string }[] = [
  { value: "member", label: "Member: sees endpoints and requests" },
  { value: "admin", label: "Admin: also creates, changes and deletes" },
  { value: "owner", label: "Owner: also members and API keys" },
];

/** Members of the organization (owners only): add by email, change role, remove. */
export function MembersSection() {
  const { api, org, me, notify } = useApp();
  const base = `/api/v1/organizations/${org.id}/members`;
  const members = useData(`members:${org.id}`, (signal) =>
    api.get<{ data: Member[] }>(base, signal).then((r) => r.data),
  );
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [password, setPassword] = useState("");
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [error, setError] = useState("");
  const [removing, setRemoving] = useState<Member | null>(null);
  const list = members.data ?? [];

  async function add(event: Event) {
    event.preventDefault();
    setErrors({});
    setError("");
    try {
      const body = password ? { email, role, password } : { email, role };
      const added = await api.post<{ data: Member }>(base, body);
      members.set([...list, added.data]);
      notify(`${added.data.email} added as ${added.data.role}.`);
      setEmail("");
      setPassword("");
    } catch (e) {
      if (e instanceof ApiError) setErrors(e.fields);
      setError(errorText(e));
    }
  }

  async function changeRole(member: Member, next: Role) {
    setError("");
    try {
      const updated = await api.patch<{ data: Member }>(`${base}/${member.user_id}`, {
        role: next,
      });
      members.set(list.map((m) => (m.user_id === member.user_id ? updated.data : m)));
      notify(`${member.email} is now ${next}.`);
    } catch (e) {
      setError(e instanceof ApiError && e.fields.role ? e.fields.role.join(" ") : errorText(e));
    }
  }

  async function remove(member: Member) {
    try {
      await api.delete(`${base}/${member.user_id}`);
      members.set(list.filter((m) => m.user_id !== member.user_id));
      notify(`${member.email} removed.`);
    } catch (e) {
      setError(e instanceof ApiError && e.fields.role ? e.fields.role.join(" ") : errorText(e));
    }
  }

  return (
    <section class="card" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      {error ? <Notice kind="error">{error}</Notice> : null}
      {members.state === "failed" ? <Notice kind="error">{members.error?.message}</Notice> : null}
      <ul class="member-list">
        {list.map((member) => (
          <li key={member.user_id} class="member">
            <span class="member-email">
              {member.email}
              {member.user_id === me.user?.id ? <span class="muted"> (you)</span> : null}
            </span>
            <label>
              <span class="visually-hidden">Role of {member.email}</span>
              <select
                value={member.role}
                onChange={(e) =>
                  changeRole(member, (e.currentTarget as HTMLSelectElement).value as Role)
                }
              >
                {ROLES.map((r) => (
                  <option value={r.value} key={r.value}>
                    {r.value}
                  </option>
                ))}
              </select>
            </label>
            <button
              type="button"
              class="button small danger"
              onClick={() => setRemoving(member)}
              aria-label={`Remove ${member.email}`}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      <form class="add-member" onSubmit={add} noValidate aria-labelledby="add-member-title">
        <h3 id="add-member-title">Add a member</h3>
        <Field
          label="Email"
          name="member_email"
          type="email"
          required
          value={email}
          onInput={setEmail}
          errors={errors.email}
        />
        <div class="field">
          <label for="member-role">Role</label>
          <select
            id="member-role"
            value={role}
            onChange={(e) => setRole((e.currentTarget as HTMLSelectElement).value as Role)}
          >
            {ROLES.map((r) => (
              <option value={r.value} key={r.value}>
                {r.label}
              </option>
            ))}
          </select>
        </div>
        <Field
          label="Password for a new account"
          name="member_password"
          type="password"
          autoComplete="new-password"
          value={password}
          onInput={setPassword}
          errors={errors.password}
          hint="Needed only when nobody has an account with this email yet (Weir sends no mail). Share it with them safely."
        />
        <button type="submit" class="button primary">
          Add member
        </button>
      </form>
      {removing ? (
        <ConfirmDialog
          title={`Remove ${removing.email}?`}
          confirmLabel="Remove member"
          onConfirm={() => remove(removing)}
          onClose={() => setRemoving(null)}
        >
          <p>They lose access to this organization at once. Their account stays.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
