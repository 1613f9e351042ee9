/** Wire types of the Ledgerly REST API, in the snake_case the server sends. */

export interface Money {
  minor: number;
  currency: string;
}

export interface LineItem {
  description: string;
  amount: Money;
  quantity: number;
  kind: "charge" | "credit" | "proration";
}

export type InvoiceStatus = "open" | "paid" | "void" | "uncollectible";

export interface Invoice {
  id: string;
  number: string;
  status: InvoiceStatus;
  issued_on: string;
  due_on: string;
  subtotal: Money;
  discount: Money;
  tax: Money;
  total: Money;
  pdf_url?: string | null;
}

export type BillingInterval = "month" | "year";

export interface Plan {
  code: string;
  name: string;
  interval: BillingInterval;
  price: Money;
  seat_limit: number | null;
  features: string[];
}

export type SubscriptionStatus = "trialing" | "active" | "past_due" | "paused" | "canceled";

export interface Subscription {
  id: string;
  plan_code: string;
  status: SubscriptionStatus;
  period_start: string;
  period_end: string;
  cancel_at_period_end: boolean;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface ApiErrorBody {
  error: { code: string; message: string; retry_after?: number };
}

export interface SessionResponse {
  session: string;
  expires_at: string;
}
