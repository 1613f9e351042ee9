import { useState, type FormEvent } from "react";
import { ApiError, type ApiClient } from "../api/client";
import { fromResponse, saveSession, type StoredSession } from "../auth/session";

interface LoginFormProps {
  client: ApiClient;
  onSignedIn: (session: StoredSession) => void;
}

export function LoginForm({ client, onSignedIn }: LoginFormProps) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setPending(true);
    setError(null);
    try {
      const session = fromResponse(await client.login(email.trim(), password));
      saveSession(session);
      onSignedIn(session);
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) {
        setError(`Too many attempts. Try again in ${Math.ceil(err.retryAfter ?? 60)} seconds.`);
      } else if (err instanceof ApiError && err.status === 401) {
        setError("Email or password is wrong.");
      } else {
        setError("Something went wrong. Please try again.");
      }
    } finally {
      setPending(false);
    }
  }

  async function forgot() {
    if (!email.trim()) {
      setError("Enter your email first.");
      return;
    }
    await client.requestPasswordReset(email.trim());
    setNotice("If this address has an account, a reset link is on its way.");
  }

  return (
    <form className="login-form" onSubmit={submit}>
      <label>
        Email
        <input type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required />
      </label>
      <label>
        Password
        <input
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
      </label>
      {error && <p role="alert">{error}</p>}
      {notice && <p role="status">{notice}</p>}
      <button type="submit" disabled={pending}>
        {pending ? "Signing in…" : "Sign in"}
      </button>
      <button type="button" className="link" onClick={() => void forgot()}>
        Forgot your password?
      </button>
    </form>
  );
}
