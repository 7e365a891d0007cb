// The page's small DOM and wording helpers, shared by its parts.
import { LockNotVerifiedError, MakerError } from '@rfq-maker/taker';

export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
};

export const show = (element: HTMLElement, visible: boolean) => {
  element.hidden = !visible;
};

export const time = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleTimeString() : '—');

export const amount = (view: { amount: string; asset: string } | null | undefined) =>
  view ? `${view.amount} ${view.asset}` : '—';

export const short = (signature: string) => `${signature.slice(0, 8)}…${signature.slice(-8)}`;

export const describe = (error: unknown) =>
  error instanceof MakerError
    ? `${error.message}${error.details.length ? ` (${error.details.join('; ')})` : ''}`
    : error instanceof LockNotVerifiedError
      ? `The maker’s lock did not pass the checks on chain, so your secret stays in this browser: ${error.verification.checks
          .filter((c) => !c.ok)
          .map((c) => c.detail)
          .join('; ')}. Your input comes back by refund after its expiry.`
      : (error as Error).message;
