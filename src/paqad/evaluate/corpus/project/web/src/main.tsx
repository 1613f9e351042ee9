import { StrictMode, useEffect, useMemo, useState } from "react";
import { createRoot } from "react-dom/client";
import { ApiClient } from "./api/client";
import { clearSession, fromResponse, loadSession, scheduleRefresh, type StoredSession } from "./auth/session";
import { InvoiceTable } from "./components/InvoiceTable";
import { LoginForm } from "./components/LoginForm";

function App() {
  const [session, setSession] = useState<StoredSession | null>(() => loadSession());
  const client = useMemo(
    () =>
      new ApiClient({
        baseUrl: import.meta.env.VITE_API_URL ?? window.location.origin,
        getToken: () => loadSession()?.token ?? null,
        onUnauthorized: () => {
          clearSession();
          setSession(null);
        },
      }),
    [],
  );

  useEffect(() => {
    if (!session) return undefined;
    return scheduleRefresh(session, async () => fromResponse(await client.refreshSession()), () => setSession(null));
  }, [client, session]);

  if (!session) return <LoginForm client={client} onSignedIn={setSession} />;
  return (
    <main>
      <h1>Invoices</h1>
      <InvoiceTable client={client} />
    </main>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
