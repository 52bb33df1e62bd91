import pytest

from ledger import CurrencyMismatchError, InvalidAmountError, Money, format_cents


class TestMoneyBasics:
    def test_construction_rules(self):
        with pytest.raises(TypeError):
            Money(1.5, "USD")
        with pytest.raises(TypeError):
            Money(True, "USD")
        for bad in ["usd", "US", "USDX", ""]:
            with pytest.raises(ValueError):
                Money(1, bad)

    def test_equality_and_ordering(self):
        assert Money(5, "USD") == Money(5, "USD")
        assert Money(5, "USD") != Money(5, "EUR")
        assert Money(4, "USD") < Money(5, "USD") <= Money(5, "USD")
        with pytest.raises(CurrencyMismatchError):
            Money(1, "USD") < Money(2, "EUR")


class TestFormatCents:
    @pytest.mark.parametrize(
        "cents, text",
        [(0, "0.00"), (5, "0.05"), (100, "1.00"), (123456789, "1,234,567.89"), (-150, "-1.50"),
         (-100000, "-1,000.00"), (99999, "999.99")],
    )
    def test_values(self, cents, text):
        assert format_cents(cents) == text

    def test_str_of_money(self):
        assert str(Money(123456, "USD")) == "1,234.56 USD"
        assert str(Money(-7, "EUR")) == "-0.07 EUR"

    @pytest.mark.parametrize("bad", [1.0, "5", True])
    def test_type_error(self, bad):
        with pytest.raises(TypeError):
            format_cents(bad)


class TestParse:
    @pytest.mark.parametrize(
        "text, cents, currency",
        [
            ("12.34 USD", 1234, "USD"),
            ("-0.5 EUR", -50, "EUR"),
            ("7 GBP", 700, "GBP"),
            ("+3.10 USD", 310, "USD"),
            ("1,234.56 USD", 123456, "USD"),
            ("1,000,000 JPY", 100000000, "JPY"),
            ("  0.01   CHF  ", 1, "CHF"),
            ("0 USD", 0, "USD"),
        ],
    )
    def test_valid(self, text, cents, currency):
        assert Money.parse(text) == Money(cents, currency)

    @pytest.mark.parametrize(
        "text",
        ["1.005 USD", "12,34 USD", "1,2345 USD", "5 usd", "5", "USD 5", "1.2.3 USD", ".5 USD", "5. USD", "", "5 USD extra", "--5 USD"],
    )
    def test_invalid(self, text):
        with pytest.raises(InvalidAmountError):
            Money.parse(text)

    def test_invalid_amount_is_a_value_error(self):
        with pytest.raises(ValueError):
            Money.parse("abc")

    def test_not_a_string(self):
        with pytest.raises(InvalidAmountError):
            Money.parse(5)


class TestAdd:
    def test_add(self):
        assert Money(150, "USD") + Money(-200, "USD") == Money(-50, "USD")

    def test_sub_and_neg(self):
        assert Money(150, "USD") - Money(200, "USD") == Money(-50, "USD")
        assert -Money(3, "EUR") == Money(-3, "EUR")

    def test_currency_mismatch(self):
        with pytest.raises(CurrencyMismatchError):
            Money(1, "USD") + Money(1, "EUR")
        with pytest.raises(CurrencyMismatchError):
            Money(1, "USD") - Money(1, "EUR")

    def test_non_money(self):
        with pytest.raises(TypeError):
            Money(1, "USD") + 1

    def test_immutable_operands(self):
        a = Money(10, "USD")
        b = a + Money(5, "USD")
        assert a == Money(10, "USD") and b == Money(15, "USD")


class TestAllocate:
    def test_even_split_with_remainder(self):
        assert Money(100, "USD").allocate([1, 1, 1]) == [Money(34, "USD"), Money(33, "USD"), Money(33, "USD")]

    def test_weighted(self):
        assert [m.cents for m in Money(1000, "USD").allocate([70, 30])] == [700, 300]
        assert [m.cents for m in Money(5, "USD").allocate([3, 7])] == [2, 3]

    def test_largest_remainder_wins(self):
        # 10 * [1, 2, 4] / 7 = 1.43, 2.86, 5.71 -> floors 1, 2, 5; the two cents left go to .86 and .71
        assert [m.cents for m in Money(10, "USD").allocate([1, 2, 4])] == [1, 3, 6]

    def test_zero_weight_part(self):
        assert [m.cents for m in Money(3, "USD").allocate([0, 1, 1])] == [0, 2, 1]

    def test_negative_amount(self):
        assert [m.cents for m in Money(-100, "EUR").allocate([1, 1, 1])] == [-34, -33, -33]

    def test_sum_is_preserved(self):
        parts = Money(99_999, "USD").allocate([3, 5, 11, 13])
        assert sum(p.cents for p in parts) == 99_999
        assert all(p.currency == "USD" for p in parts)

    @pytest.mark.parametrize("weights", [[], [0, 0], [1, -1], [1.5, 1]])
    def test_invalid_weights(self, weights):
        with pytest.raises(ValueError):
            Money(100, "USD").allocate(weights)
