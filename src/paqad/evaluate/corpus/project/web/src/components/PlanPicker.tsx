import { useEffect, useState } from "react";
import type { ApiClient } from "../api/client";
import type { Plan, Subscription } from "../api/types";
import { formatMoney, perMonth } from "../billing/format";

interface PlanPickerProps {
  client: ApiClient;
  subscription: Subscription;
  onChanged: (subscription: Subscription) => void;
}

export function PlanPicker({ client, subscription, onChanged }: PlanPickerProps) {
  const [plans, setPlans] = useState<Plan[]>([]);
  const [busy, setBusy] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);

  useEffect(() => {
    client.listPlans().then(setPlans).catch((err: Error) => setMessage(err.message));
  }, [client]);

  const current = plans.find((plan) => plan.code === subscription.plan_code);

  async function choose(plan: Plan) {
    setBusy(plan.code);
    setMessage(null);
    try {
      onChanged(await client.changePlan(subscription.id, plan.code));
      setMessage(`Switched to ${plan.name}. The difference appears on your next invoice.`);
    } catch (err) {
      setMessage((err as Error).message);
    } finally {
      setBusy(null);
    }
  }

  async function stop() {
    if (!window.confirm("Stop the subscription at the end of the current period?")) return;
    setBusy("cancel");
    try {
      onChanged(await client.cancelSubscription(subscription.id, true));
      setMessage(`Your subscription ends on ${subscription.period_end}.`);
    } catch (err) {
      setMessage((err as Error).message);
    } finally {
      setBusy(null);
    }
  }

  return (
    <section className="plan-picker">
      <ul>
        {plans.map((plan) => {
          const monthly = perMonth(plan.price, plan.interval);
          const isCurrent = plan.code === subscription.plan_code;
          const costsMore = current !== undefined && monthly.minor > perMonth(current.price, current.interval).minor;
          return (
            <li key={plan.code} className={isCurrent ? "current" : undefined}>
              <h3>{plan.name}</h3>
              <p>
                {formatMoney(monthly)} / month{plan.interval === "year" ? ", billed yearly" : ""}
              </p>
              <p>{plan.seat_limit === null ? "Unlimited seats" : `Up to ${plan.seat_limit} seats`}</p>
              {!isCurrent && (
                <button disabled={busy !== null} onClick={() => void choose(plan)}>
                  {costsMore ? "Upgrade" : "Switch"}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {subscription.status !== "canceled" && !subscription.cancel_at_period_end && (
        <button className="danger" disabled={busy !== null} onClick={() => void stop()}>
          Cancel subscription
        </button>
      )}
      {message && <p role="status">{message}</p>}
    </section>
  );
}
