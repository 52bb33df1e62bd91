import datetime as dt

import pytest

from ledger import Account, AccountKind, Money, Posting, Statement, StatementLine, build_statement, render_statement

D = dt.date


def usd(cents):
    return Money(cents, "USD")


def account():
    acc = Account("ACC-1", "Ada Lovelace", AccountKind.CHECKING, "USD", D(2024, 1, 1), overdraft_limit=200_000)
    for k, (day, cents, desc) in enumerate(
        [
            (D(2024, 1, 1), 10_000, "Opening deposit"),
            (D(2024, 1, 5), 5_000, "Deposit"),
            (D(2024, 1, 9), -100_000, "Rent"),
            (D(2024, 1, 31), -500, "Monthly fee 2024-01"),
            (D(2024, 2, 2), 7, "Interest"),
        ],
        start=1,
    ):
        acc.postings.append(Posting(k, day, usd(cents), desc))
    return acc


class TestBuildStatement:
    def test_period(self):
        st = build_statement(account(), D(2024, 1, 2), D(2024, 1, 31))
        assert (st.account_id, st.owner, st.start, st.end) == ("ACC-1", "Ada Lovelace", D(2024, 1, 2), D(2024, 1, 31))
        assert st.opening_balance == usd(10_000)
        assert st.lines == (
            StatementLine(D(2024, 1, 5), "Deposit", usd(5_000), usd(15_000)),
            StatementLine(D(2024, 1, 9), "Rent", usd(-100_000), usd(-85_000)),
            StatementLine(D(2024, 1, 31), "Monthly fee 2024-01", usd(-500), usd(-85_500)),
        )
        assert st.closing_balance == usd(-85_500)
        assert st.total_credits == usd(5_000)
        assert st.total_debits == usd(100_500)

    def test_boundaries_inclusive(self):
        st = build_statement(account(), D(2024, 1, 1), D(2024, 1, 5))
        assert st.opening_balance == usd(0)
        assert [line.description for line in st.lines] == ["Opening deposit", "Deposit"]

    def test_empty_period(self):
        st = build_statement(account(), D(2024, 1, 10), D(2024, 1, 30))
        assert st.lines == ()
        assert st.opening_balance == st.closing_balance == usd(-85_000)
        assert st.total_credits == st.total_debits == usd(0)

    def test_closing_equals_balance_at_end(self):
        acc = account()
        st = build_statement(acc, D(2024, 1, 6), D(2024, 2, 2))
        assert st.closing_balance == acc.balance_at(D(2024, 2, 2))

    def test_end_before_start(self):
        with pytest.raises(ValueError):
            build_statement(account(), D(2024, 2, 1), D(2024, 1, 1))


class TestRenderStatement:
    def test_layout(self):
        st = Statement(
            account_id="ACC-1",
            owner="Ada Lovelace",
            start=D(2024, 1, 1),
            end=D(2024, 1, 31),
            opening_balance=usd(10_000),
            closing_balance=usd(-85_000),
            lines=(
                StatementLine(D(2024, 1, 5), "Deposit", usd(5_000), usd(15_000)),
                StatementLine(D(2024, 1, 9), "Rent", usd(-100_000), usd(-85_000)),
            ),
            total_credits=usd(5_000),
            total_debits=usd(100_000),
        )
        assert render_statement(st) == (
            "Statement for ACC-1 (Ada Lovelace)\n"
            "Period: 2024-01-01 to 2024-01-31\n"
            "Opening balance: 100.00 USD\n"
            "2024-01-05  Deposit                        50.00      150.00\n"
            "2024-01-09  Rent                        1,000.00     -850.00\n"
            "Closing balance: -850.00 USD\n"
            "Total credits: 50.00 USD\n"
            "Total debits: 1,000.00 USD\n"
        )

    def test_long_description_is_cut(self):
        line = StatementLine(D(2024, 1, 5), "Transfer to savings account 42", usd(1), usd(1))
        st = Statement("X", "O", D(2024, 1, 1), D(2024, 1, 31), usd(0), usd(1), (line,), usd(1), usd(0))
        rows = render_statement(st).splitlines()
        assert rows[3] == "2024-01-05  Transfer to savings acco        0.01        0.01"

    def test_no_transactions(self):
        st = Statement("X", "O", D(2024, 1, 1), D(2024, 1, 31), usd(0), usd(0), (), usd(0), usd(0))
        assert render_statement(st).splitlines()[3:] == [
            "(no transactions)",
            "Closing balance: 0.00 USD",
            "Total credits: 0.00 USD",
            "Total debits: 0.00 USD",
        ]
