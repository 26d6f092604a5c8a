//! The dashboard's JavaScript: search filtering, the New invoice modal, the slow report
//! action, and the scripts of the faults asked for. Plain ES5, no libraries. It changes no
//! pixel when it runs (it only listens), so a page whose script arrives late looks the same
//! before and after.

use crate::faults::Fault;
use crate::faults::Faults;

/// The whole script for a dashboard with `faults`, sending saved drafts to the server when
/// they are `shared` (see [`crate::recent_drafts`]).
pub fn script(faults: &Faults, shared: bool) -> String {
    let mut script = String::from(BASE);
    if shared {
        script.push_str(crate::recent_drafts::SCRIPT);
    }
    for fault in faults.iter() {
        script.push_str(match fault {
            Fault::SaveIgnoresClicks => SAVE_IGNORES_CLICKS,
            Fault::MarkSentIgnoresClicks => MARK_SENT_IGNORES_CLICKS,
            Fault::AmountRewritten => AMOUNT_REWRITTEN,
        });
    }
    script.push_str(crate::scripts::READY_MARK);
    script
}

/// What every dashboard does. A saved row is "Pending" when "Mark as sent" was checked; its
/// amount has the sign of the currency chosen (the option's `data-sign`).
const BASE: &str = r#"
(function(){
var byId=function(id){return document.getElementById(id);};
var search=byId('search'),count=byId('invoice-count'),empty=byId('no-results');
var tbody=document.querySelector('#invoices tbody');
function rows(){return Array.prototype.slice.call(tbody.querySelectorAll('tr[data-invoice]'));}
function filter(){
  var q=search.value.trim().toLowerCase(),all=rows(),shown=0;
  all.forEach(function(r){var hit=r.textContent.toLowerCase().indexOf(q)!==-1;r.hidden=!hit;if(hit){shown++;}});
  count.textContent='Showing '+shown+' of '+all.length+' invoices';
  empty.hidden=shown!==0;
}
search.addEventListener('input',filter);
var modal=byId('modal');
function closeModal(){modal.hidden=true;byId('modal-form').reset();}
byId('new-invoice').addEventListener('click',function(){modal.hidden=false;byId('modal-customer').focus();});
byId('modal-close').addEventListener('click',closeModal);
byId('modal-form').addEventListener('submit',function(e){
  e.preventDefault();
  var customer=byId('modal-customer').value.trim()||'New customer';
  var amount=byId('modal-amount').value.trim()||'0.00';
  var sent=byId('modal-sent'),isSent=!!(sent&&sent.checked);
  var currency=byId('modal-currency'),chosen=currency.options[currency.selectedIndex];
  var sign=(chosen&&chosen.getAttribute('data-sign'))||'$';
  var number='INV-'+(1041+rows().length);
  var tr=document.createElement('tr');tr.setAttribute('data-invoice',number);
  [number,customer,'2026-11-21',sign+amount].forEach(function(text,i){var td=document.createElement('td');if(i===3){td.className='num';}td.textContent=text;tr.appendChild(td);});
  var td=document.createElement('td');td.innerHTML=isSent?'<span class="badge pending">Pending</span>':'<span class="badge draft">Draft</span>';tr.appendChild(td);
  tbody.insertBefore(tr,empty);closeModal();filter();
});
var button=byId('generate-report'),result=byId('report-result');
button.addEventListener('click',function(){
  button.disabled=true;result.className='pending';result.textContent='Generating report...';
  fetch('/api/report',{credentials:'same-origin'})
    .then(function(r){if(!r.ok){throw new Error('HTTP '+r.status);}return r.json();})
    .then(function(d){result.className='ready';result.textContent='Report ready: '+d.invoices+' invoices, '+d.total+' billed';})
    .catch(function(e){result.className='failed';result.textContent='Report failed: '+e.message;})
    .then(function(){button.disabled=false;});
});
})();
"#;

/// "Save draft" swallows its clicks before the form sees them (a prevented click on a submit
/// button submits nothing; Enter in a field clicks the button, so it is swallowed too).
const SAVE_IGNORES_CLICKS: &str = r#"
document.getElementById('modal-save').addEventListener('click',function(e){e.preventDefault();e.stopImmediatePropagation();},true);
"#;

/// A prevented click on a checkbox undoes its toggle (clicks on its label reach it too).
const MARK_SENT_IGNORES_CLICKS: &str = r#"
document.getElementById('modal-sent').addEventListener('click',function(e){e.preventDefault();},true);
"#;

/// The amount field drops every `.` as it is typed.
const AMOUNT_REWRITTEN: &str = r#"
(function(){var amount=document.getElementById('modal-amount');
amount.addEventListener('input',function(){var v=amount.value.replace(/\./g,'');if(v!==amount.value){amount.value=v;}});})();
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fault_scripts_are_added_only_when_asked_for() {
        let plain = script(&Faults::none(), false);
        assert!(!plain.contains("/api/drafts"));
        assert!(script(&Faults::none(), true).contains("/api/drafts"));
        assert!(!plain.contains("stopImmediatePropagation"));
        assert!(!plain.contains("modal-sent').addEventListener"));
        assert!(!plain.contains("replace(/\\./g"));
        assert!(plain.ends_with(crate::scripts::READY_MARK));
        let all = script(&Faults::of(&Fault::ALL), false);
        assert!(all.contains("stopImmediatePropagation"));
        assert!(all.contains("modal-sent').addEventListener"));
        assert!(all.contains("replace(/\\./g"));
    }
}
