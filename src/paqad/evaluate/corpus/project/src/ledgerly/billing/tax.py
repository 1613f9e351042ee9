"""VAT: destination-country rates for consumers, reverse charge for EU businesses, none outside the EU."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from ledgerly.money import Money

SELLER_COUNTRY = "DE"
# Standard rates from the European Commission's "VAT rates applied in the Member States" (January 2024).
EU_STANDARD_RATES = {
    "AT": "0.20", "BE": "0.21", "DE": "0.19", "DK": "0.25", "ES": "0.21", "FI": "0.24", "FR": "0.20",
    "GR": "0.24", "IE": "0.23", "IT": "0.22", "NL": "0.21", "PL": "0.23", "PT": "0.23", "SE": "0.25",
}
VAT_ID_PATTERN = re.compile(r"^[A-Z]{2}[0-9A-Z]{8,12}$")


@dataclass(frozen=True)
class TaxDecision:
    rate: Decimal
    reverse_charge: bool = False
    note: str = ""


def looks_like_vat_id(vat_id: str, country: str) -> bool:
    """Format check only; the VIES lookup happens when the customer saves the number."""
    compact = vat_id.replace(" ", "").upper()
    prefix = "EL" if country == "GR" else country
    return compact.startswith(prefix) and bool(VAT_ID_PATTERN.match(compact))


def decide_tax(country: str, vat_id: str | None) -> TaxDecision:
    country = country.upper()
    if country not in EU_STANDARD_RATES:
        return TaxDecision(Decimal(0), note="Outside the scope of EU VAT.")
    if vat_id and country != SELLER_COUNTRY and looks_like_vat_id(vat_id, country):
        return TaxDecision(
            Decimal(0),
            reverse_charge=True,
            note="Reverse charge: VAT to be accounted for by the recipient (Art. 196 Directive 2006/112/EC).",
        )
    return TaxDecision(Decimal(EU_STANDARD_RATES[country]))


def tax_on(net: Money, decision: TaxDecision) -> Money:
    return net.scaled(decision.rate)
