//! The currencies a new invoice can be in: the modal's dropdown lists them, and the saved
//! row and the "Recently saved" card write the amount with the chosen currency's sign.

/// Each currency's code (the dropdown's option) and the sign written before an amount, in the
/// dropdown's order; the first is the default.
pub const CURRENCIES: [(&str, &str); 3] = [("USD", "$"), ("EUR", "€"), ("GBP", "£")];

/// The default currency's code (the dropdown's first option).
pub(crate) fn default_code() -> String {
    CURRENCIES[0].0.to_owned()
}

/// `amount` in the currency `code`: its sign before the amount (`€120.00`), or for a code
/// not listed the code after it (`120.00 CHF`).
pub fn with_sign(code: &str, amount: &str) -> String {
    match CURRENCIES.iter().find(|(known, _)| *known == code) {
        Some((_, sign)) => format!("{sign}{amount}"),
        None => format!("{amount} {code}"),
    }
}

/// The modal's dropdown: one option per currency, its sign in `data-sign` for the page's
/// script.
pub(crate) fn dropdown() -> String {
    let options: String = CURRENCIES
        .iter()
        .map(|(code, sign)| {
            format!("<option value=\"{code}\" data-sign=\"{sign}\">{code}</option>")
        })
        .collect();
    format!(
        "<select class=\"input\" id=\"modal-currency\" name=\"currency\" \
         aria-label=\"Currency\">{options}</select>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_amount_takes_its_currencys_sign_or_else_its_code() {
        assert_eq!(with_sign("USD", "120.00"), "$120.00");
        assert_eq!(with_sign("EUR", "120.00"), "€120.00");
        assert_eq!(with_sign("GBP", "0.50"), "£0.50");
        assert_eq!(with_sign("CHF", "120.00"), "120.00 CHF");
        assert_eq!(default_code(), "USD");
    }

    #[test]
    fn the_dropdown_lists_every_currency_in_order_with_its_sign() {
        let html = dropdown();
        assert!(html.starts_with("<select class=\"input\" id=\"modal-currency\""));
        assert!(html.contains("aria-label=\"Currency\""));
        let at: Vec<usize> = CURRENCIES
            .iter()
            .filter_map(|(code, sign)| {
                html.find(&format!(
                    "value=\"{code}\" data-sign=\"{sign}\">{code}</option>"
                ))
            })
            .collect();
        assert_eq!(at.len(), CURRENCIES.len(), "{html}");
        assert!(at.windows(2).all(|pair| pair[0] < pair[1]), "{html}");
    }
}
