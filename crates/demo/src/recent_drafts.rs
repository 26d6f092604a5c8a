//! Shared drafts (opt-in, [`crate::DemoConfig::recent_drafts`]): "Save draft" also stores the
//! draft on the server (`POST /api/drafts` `{customer, amount, currency}`, signed in only), and every dashboard shows the
//! last [`SHOWN`] drafts anyone saved in a "Recently saved" card, drawn over the middle of the
//! invoice table (fixed at x 300..640, y 440..~520 at 1280x800) once there is one.
//!
//! What it is for: tests that run one flow many times against one app see each other's
//! records, as on a real server with a "Recent actions" panel, and a check that hashes the
//! pixels where that card appears (the region around the "Sign in" button, on the page after
//! signing in) fails on a correct app. The card stays clear of the demo flow's other regions
//! (the New invoice button, the modal, the new row's badge).

use std::sync::Arc;
use std::sync::Mutex;

use serde::Deserialize;

use crate::html::escape;

/// How many of the latest drafts the card lists.
pub const SHOWN: usize = 3;

/// Drafts saved by anyone, oldest first; shared by every request of one app.
#[derive(Debug, Clone, Default)]
pub(crate) struct SavedDrafts(Arc<Mutex<Vec<Draft>>>);

/// One saved draft.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct Draft {
    customer: String,
    amount: String,
    /// The currency's code (the modal's dropdown); a client that sends none means the first.
    #[serde(default = "crate::currency::default_code")]
    currency: String,
}

impl SavedDrafts {
    pub(crate) fn push(&self, draft: Draft) -> usize {
        match self.0.lock() {
            Ok(mut drafts) => {
                drafts.push(draft);
                drafts.len()
            }
            Err(_) => 0,
        }
    }

    /// How many drafts were saved, and the latest [`SHOWN`] of them, newest first.
    fn latest(&self) -> (usize, Vec<Draft>) {
        self.0
            .lock()
            .map(|drafts| {
                let latest = drafts.iter().rev().take(SHOWN).cloned().collect();
                (drafts.len(), latest)
            })
            .unwrap_or_default()
    }

    /// The "Recently saved" card, its `data-saved` attribute the number of drafts saved so far
    /// (not drawn: a test reads it); empty when nothing was saved.
    pub(crate) fn card(&self) -> String {
        let (saved, latest) = self.latest();
        if latest.is_empty() {
            return String::new();
        }
        let items: String = latest
            .iter()
            .map(|draft| {
                format!(
                    "<li>{} &middot; {}</li>",
                    escape(&draft.customer),
                    escape(&crate::currency::with_sign(&draft.currency, &draft.amount))
                )
            })
            .collect();
        format!(
            "<div class=\"card\" id=\"recent-drafts\" data-saved=\"{saved}\" style=\"position: fixed; left: 300px; \
             top: 440px; width: 340px; padding: 10px 16px; background: #fefce8; \
             border: 1px solid #ca8a04;\"><h2>Recently saved</h2><ul>{items}</ul></div>"
        )
    }
}

/// What the dashboard's script adds: each saved draft is also sent to the server.
pub(crate) const SCRIPT: &str = r#"
document.getElementById('modal-form').addEventListener('submit',function(){
  var customer=document.getElementById('modal-customer').value.trim()||'New customer';
  var amount=document.getElementById('modal-amount').value.trim()||'0.00';
  var currency=document.getElementById('modal-currency').value;
  fetch('/api/drafts',{method:'POST',credentials:'same-origin',headers:{'content-type':'application/json'},body:JSON.stringify({customer:customer,amount:amount,currency:currency})});
},true);
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_card_lists_the_latest_drafts_newest_first_and_is_absent_before_any() {
        let drafts = SavedDrafts::default();
        assert_eq!(drafts.card(), "");
        for index in 1..=4 {
            drafts.push(Draft {
                customer: format!("Customer <{index}>"),
                amount: "120.00".into(),
                currency: ["USD", "EUR", "GBP", "CHF"][index - 1].into(),
            });
        }
        let card = drafts.card();
        assert!(
            card.contains("id=\"recent-drafts\" data-saved=\"4\""),
            "{card}"
        );
        // Each amount in its currency, newest first.
        assert!(
            card.contains("Customer &lt;4&gt; &middot; 120.00 CHF"),
            "{card}"
        );
        assert!(
            card.contains("Customer &lt;3&gt; &middot; £120.00"),
            "{card}"
        );
        assert!(
            card.contains("Customer &lt;2&gt; &middot; €120.00"),
            "{card}"
        );
        let shown: Vec<usize> = (1..=4)
            .filter_map(|index| card.find(&format!("Customer &lt;{index}&gt;")))
            .collect();
        assert_eq!(shown.len(), SHOWN, "{card}");
        assert!(shown.windows(2).all(|pair| pair[0] > pair[1]), "{card}");
        assert!(!card.contains("Customer &lt;1&gt;"), "{card}");
    }
}
