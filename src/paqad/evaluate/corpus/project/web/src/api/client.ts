import type { ApiErrorBody, Invoice, Page, Plan, SessionResponse, Subscription } from "./types";

export class ApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
    public readonly retryAfter?: number,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export interface ClientOptions {
  baseUrl: string;
  getToken: () => string | null;
  timeoutMs?: number;
  onUnauthorized?: () => void;
}

type Method = "GET" | "POST" | "DELETE";

// Only reads are repeated automatically; writes rely on the Idempotency-Key instead.
const MAX_GET_ATTEMPTS = 3;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function toApiError(response: Response): Promise<ApiError> {
  let body: ApiErrorBody | null = null;
  try {
    body = (await response.json()) as ApiErrorBody;
  } catch {
    body = null;
  }
  const header = response.headers.get("Retry-After");
  const retryAfter = body?.error.retry_after ?? (header ? Number(header) : undefined);
  return new ApiError(response.status, body?.error.code ?? "http_error", body?.error.message ?? response.statusText, retryAfter);
}

export class ApiClient {
  private readonly timeoutMs: number;

  constructor(private readonly options: ClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  async request<T>(method: Method, path: string, body?: unknown, query?: Record<string, string | undefined>): Promise<T> {
    const url = new URL(path, this.options.baseUrl);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, value);
    }
    const headers: Record<string, string> = { Accept: "application/json" };
    const token = this.options.getToken();
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    // One key per logical request, so a repeated POST is answered from the server's stored response.
    if (method === "POST") headers["Idempotency-Key"] = crypto.randomUUID();

    for (let attempt = 1; ; attempt++) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), this.timeoutMs);
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: controller.signal,
        });
      } finally {
        clearTimeout(timer);
      }
      if (response.ok) return (await response.json()) as T;
      const error = await toApiError(response);
      if (error.status === 401) this.options.onUnauthorized?.();
      const transient = method === "GET" && (error.status === 429 || error.status === 503);
      if (!transient || attempt >= MAX_GET_ATTEMPTS) throw error;
      await sleep((error.retryAfter ?? attempt) * 1000);
    }
  }

  listInvoices(cursor?: string, limit = 25): Promise<Page<Invoice>> {
    return this.request("GET", "/v1/invoices", undefined, { starting_after: cursor, limit: String(limit) });
  }

  async listPlans(): Promise<Plan[]> {
    const page = await this.request<{ data: Plan[] }>("GET", "/v1/plans");
    return page.data;
  }

  cancelSubscription(id: string, atPeriodEnd = true): Promise<Subscription> {
    return this.request("POST", `/v1/subscriptions/${encodeURIComponent(id)}/cancel`, { at_period_end: atPeriodEnd });
  }

  changePlan(id: string, planCode: string): Promise<Subscription> {
    return this.request("POST", `/v1/subscriptions/${encodeURIComponent(id)}/plan`, { plan_code: planCode });
  }

  login(email: string, password: string): Promise<SessionResponse> {
    return this.request("POST", "/v1/sessions", { email, password });
  }

  refreshSession(): Promise<SessionResponse> {
    return this.request("POST", "/v1/sessions/refresh", {});
  }

  requestPasswordReset(email: string): Promise<{ status: string }> {
    return this.request("POST", "/v1/password-resets", { email });
  }
}
