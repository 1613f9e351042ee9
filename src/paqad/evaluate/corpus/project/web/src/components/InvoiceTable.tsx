import { useCallback } from "react";
import type { ApiClient } from "../api/client";
import type { Invoice, InvoiceStatus } from "../api/types";
import { formatDate, formatMoney } from "../billing/format";
import { usePagedList } from "../hooks/usePagedList";

const STATUS_LABELS: Record<InvoiceStatus, string> = {
  open: "Open",
  paid: "Paid",
  void: "Void",
  uncollectible: "Uncollectible",
};

export function isOverdue(invoice: Invoice, today: Date = new Date()): boolean {
  return invoice.status === "open" && new Date(invoice.due_on) < today;
}

export function InvoiceTable({ client }: { client: ApiClient }) {
  const fetchPage = useCallback((cursor?: string) => client.listInvoices(cursor), [client]);
  const { items, loading, error, hasMore, loadMore } = usePagedList(fetchPage);

  if (error) return <p role="alert">Could not load invoices: {error.message}</p>;
  return (
    <div>
      <table className="invoice-table">
        <thead>
          <tr>
            <th>Number</th>
            <th>Issued</th>
            <th>Due</th>
            <th>Status</th>
            <th className="num">Total</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {items.map((invoice) => (
            <tr key={invoice.id} className={isOverdue(invoice) ? "overdue" : undefined}>
              <td>{invoice.number}</td>
              <td>{formatDate(invoice.issued_on)}</td>
              <td>{formatDate(invoice.due_on)}</td>
              <td>{STATUS_LABELS[invoice.status]}</td>
              <td className="num">{formatMoney(invoice.total)}</td>
              <td>{invoice.pdf_url ? <a href={invoice.pdf_url}>PDF</a> : null}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {hasMore && (
        <button onClick={loadMore} disabled={loading}>
          {loading ? "Loading…" : "Load more"}
        </button>
      )}
    </div>
  );
}
