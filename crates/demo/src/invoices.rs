//! The fixed invoice data the dashboard shows and the report sums up. Fixed so pages render
//! the same pixels on every run.

/// Where an invoice stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Settled.
    Paid,
    /// Sent, not yet due.
    Pending,
    /// Past its due date.
    Overdue,
    /// Not sent yet.
    Draft,
}

impl Status {
    /// The label shown in the status badge.
    pub fn label(self) -> &'static str {
        match self {
            Status::Paid => "Paid",
            Status::Pending => "Pending",
            Status::Overdue => "Overdue",
            Status::Draft => "Draft",
        }
    }

    /// The CSS class of the badge.
    pub fn css_class(self) -> &'static str {
        match self {
            Status::Paid => "badge paid",
            Status::Pending => "badge pending",
            Status::Overdue => "badge overdue",
            Status::Draft => "badge draft",
        }
    }
}

/// One row of the invoice table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Invoice {
    /// Invoice number, e.g. `INV-1041`.
    pub number: &'static str,
    /// Customer name.
    pub customer: &'static str,
    /// Issue date, ISO 8601.
    pub issued: &'static str,
    /// Amount in cents.
    pub amount_cents: u64,
    /// Where it stands.
    pub status: Status,
}

/// Every invoice in the demo workspace, in table order.
pub const INVOICES: [Invoice; 8] = [
    Invoice {
        number: "INV-1041",
        customer: "Harbor Coffee Roasters",
        issued: "2026-10-02",
        amount_cents: 124_000,
        status: Status::Paid,
    },
    Invoice {
        number: "INV-1042",
        customer: "Maple & Finch Studio",
        issued: "2026-10-05",
        amount_cents: 86_050,
        status: Status::Paid,
    },
    Invoice {
        number: "INV-1043",
        customer: "Northgate Dental",
        issued: "2026-10-09",
        amount_cents: 231_000,
        status: Status::Overdue,
    },
    Invoice {
        number: "INV-1044",
        customer: "Bluebird Bakery",
        issued: "2026-10-14",
        amount_cents: 41_575,
        status: Status::Paid,
    },
    Invoice {
        number: "INV-1045",
        customer: "Copperline Electric",
        issued: "2026-10-18",
        amount_cents: 398_000,
        status: Status::Pending,
    },
    Invoice {
        number: "INV-1046",
        customer: "Riverside Yoga",
        issued: "2026-10-21",
        amount_cents: 29_500,
        status: Status::Pending,
    },
    Invoice {
        number: "INV-1047",
        customer: "Summit Outdoor Supply",
        issued: "2026-10-27",
        amount_cents: 177_520,
        status: Status::Paid,
    },
    Invoice {
        number: "INV-1048",
        customer: "Lantern Books",
        issued: "2026-11-03",
        amount_cents: 64_000,
        status: Status::Draft,
    },
];

/// The sum of all invoice amounts, in cents.
pub fn total_cents() -> u64 {
    INVOICES.iter().map(|invoice| invoice.amount_cents).sum()
}

/// How many invoices have `status`.
pub fn count_with(status: Status) -> usize {
    INVOICES
        .iter()
        .filter(|invoice| invoice.status == status)
        .count()
}

/// The sum of the amounts of invoices with `status`, in cents.
pub fn total_with(status: Status) -> u64 {
    INVOICES
        .iter()
        .filter(|invoice| invoice.status == status)
        .map(|invoice| invoice.amount_cents)
        .sum()
}

/// Formats cents as dollars with thousands separators: `1234567` → `$12,345.67`.
pub fn format_money(cents: u64) -> String {
    let dollars = (cents / 100).to_string();
    let mut grouped = String::new();
    for (index, digit) in dollars.chars().enumerate() {
        if index > 0 && (dollars.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    format!("${grouped}.{:02}", cents % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_is_grouped_and_padded() {
        assert_eq!(format_money(0), "$0.00");
        assert_eq!(format_money(5), "$0.05");
        assert_eq!(format_money(86_050), "$860.50");
        assert_eq!(format_money(124_000), "$1,240.00");
        assert_eq!(format_money(123_456_789), "$1,234,567.89");
    }

    #[test]
    fn totals_add_up() {
        assert_eq!(total_cents(), 1_151_645);
        assert_eq!(count_with(Status::Paid), 4);
        assert_eq!(total_with(Status::Pending), 427_500);
    }
}
