import type { AnchorHTMLAttributes } from "preact";
import { onLinkClick } from "../lib/router.ts";

/** An in-app link (no reload). */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  return <a {...props} href={props.href} onClick={onLinkClick} />;
}
