import type { BillingInterval, Money } from "../api/types";

// ISO 4217 exponents that differ from the usual two decimals.
const MINOR_UNIT_EXCEPTIONS: Record<string, number> = { JPY: 0, KRW: 0, KWD: 3, BHD: 3 };

export function minorUnits(currency: string): number {
  return MINOR_UNIT_EXCEPTIONS[currency.toUpperCase()] ?? 2;
}

export function toMajor(money: Money): number {
  return money.minor / 10 ** minorUnits(money.currency);
}

export function formatMoney(money: Money, locale: string = navigator.language): string {
  return new Intl.NumberFormat(locale, {
    style: "currency",
    currency: money.currency,
    minimumFractionDigits: 2,
  }).format(toMajor(money));
}

export function formatDate(iso: string, locale: string = navigator.language): string {
  return new Intl.DateTimeFormat(locale, { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" }).format(
    new Date(iso),
  );
}

export function perMonth(price: Money, interval: BillingInterval): Money {
  return interval === "year" ? { minor: Math.round(price.minor / 12), currency: price.currency } : price;
}
