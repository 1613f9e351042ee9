"""Issue 22's own example as a project: an Elixir shop (``mix.exs``, a 57-line ``lib/shop/cart.ex``
holding ``Shop.Cart.total`` among eleven functions) to index and probe with two codes.

    .venv/bin/python bench/languages/probe_example.py /tmp/shop
    cd /tmp/shop && PAQAD_RAG_WARM_PROCESS=false paqad-ai rag init --provider local --yes
    PAQAD_RAG_WARM_PROCESS=false paqad-ai rag probe "compute the cart total with tax"
    PAQAD_RAG_WARM_PROCESS=false paqad-ai rag probe "Shop.Cart.total"

Before the language pack (d325bcf) the file was cut as paragraphs (``cart.ex`` 1-24, 52 % relief);
with it the ``def total`` chunk (11-14, ``Shop.Cart.total``) comes first (92 % confident).
"""

from __future__ import annotations

import sys
from pathlib import Path

MIX = ('defmodule Shop.MixProject do\n  use Mix.Project\n\n  def project do\n'
       '    [app: :shop, version: "0.1.0", deps: []]\n  end\nend\n')
REMOVES = "".join(f'''
  @doc "Removes the lines of product {n} from the cart."
  def remove_{n}(cart) do
    %{{cart | lines: Enum.reject(cart.lines, fn line -> line.product == :p{n} end)}}
  end
''' for n in range(1, 9))
CART = ('defmodule Shop.Cart do\n  @moduledoc "A shopping cart: lines with a price and a quantity."\n\n'
        '  defstruct lines: []\n\n  @doc "Adds a line to the cart."\n  def add(cart, price, qty) do\n'
        '    %{cart | lines: [%{price: price, qty: qty} | cart.lines]}\n  end\n\n'
        '  @doc "Sum of the line prices with tax."\n  def total(cart, tax) when tax >= 0 do\n'
        '    Enum.reduce(cart.lines, 0, fn line, acc -> acc + line.price * line.qty end) * (1 + tax)\n  end\n'
        + REMOVES + '\n  defp empty?(cart), do: cart.lines == []\nend\n')
README = "# Shop\n\nA tiny shop: carts, prices and taxes.\n"


def write_project(root: Path) -> None:
    """Write the three files under ``root`` (created if missing; existing files overwritten)."""
    for rel, text in (("mix.exs", MIX), ("lib/shop/cart.ex", CART), ("README.md", README)):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    write_project(Path(sys.argv[1]))
