//! The CSS selector check accepts what browsers accept and rejects what they reject.

use retrace_schema::check_selector;

#[test]
fn valid_selectors_pass() {
    let valid = [
        "button",
        "*",
        "#login",
        ".btn.btn-primary",
        "input[name='username']",
        "input[name=\"closed-29\"]",
        "button[data-test=login-btn]",
        "a[href^='https://' i]",
        "[data-x]",
        "[ data-x ~= \"a b\" s ]",
        "svg|rect",
        "*|*",
        "div > a.retry-6",
        "ul li + li ~ li",
        "div>p",
        "form :is(input, select):not([disabled])",
        "li:nth-child(2n + 1 of .item)",
        "li:nth-of-type(-n+3)",
        "tr:nth-child(odd)",
        "p:lang(en, \"de\")",
        "section:has(> h2, + p)",
        "input::placeholder",
        "p::first-line",
        "a:hover, a:focus-visible",
        "#\\31 23",
        ".a\\:b",
        "-foo",
        "--custom",
        "h1:first-child",
        "div:where(.a .b)",
        "::slotted(span)",
        "p:dir(rtl)",
        "  div  ",
    ];
    for selector in valid {
        assert_eq!(check_selector(selector), Ok(()), "{selector:?}");
    }
}

#[test]
fn invalid_selectors_fail_with_a_position() {
    let invalid = [
        ("", 0, "expected a selector"),
        ("div >", 5, "expected a selector"),
        ("a,", 2, "expected a selector"),
        ("input[name='a", 13, "string is not closed"),
        ("input[name=\"closed-29", 21, "string is not closed"),
        ("[=x]", 1, "expected an attribute name"),
        (
            "a[b=]",
            4,
            "expected an identifier or a quoted string as the attribute value",
        ),
        (
            "a[b c]",
            4,
            "expected `]` or an attribute matcher (=, ~=, |=, ^=, $=, *=)",
        ),
        ("#", 1, "expected an id after `#`"),
        ("div.", 4, "expected a class name after `.`"),
        (
            "button:has-text(\"Login\")",
            7,
            "unknown functional pseudo-class `:has-text()`",
        ),
        ("a:foo", 2, "unknown pseudo-class `:foo`"),
        ("li:nth-child(x)", 13, "expected `odd`, `even` or An+B"),
        ("p::nope", 3, "unknown pseudo-element `::nope`"),
        (":not(a", 6, "expected `)` to close `:not(`"),
        ("a)", 1, "unexpected character"),
        ("1div", 0, "expected a selector"),
        ("text=Login", 4, "expected a combinator"),
        ("a\\", 2, "`\\` at the end"),
    ];
    for (selector, at, reason) in invalid {
        let error = check_selector(selector).unwrap_err();
        assert_eq!(
            (error.at, error.reason.as_str()),
            (at, reason),
            "{selector:?}"
        );
    }
}
