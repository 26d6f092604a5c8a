//! Which names say "secret": one word list for parameter names (whose values reports and logs
//! redact) and for the fields a demonstration records (whose typed text becomes a
//! placeholder), so the two never disagree about what a password is.

/// Words that make a name secret.
pub const SECRET_WORDS: [&str; 13] = [
    "password",
    "passwd",
    "pwd",
    "pass",
    "passphrase",
    "secret",
    "token",
    "key",
    "apikey",
    "credential",
    "credentials",
    "otp",
    "pin",
];

/// Secret words this long or longer also count inside a longer word (`newpassword`,
/// `accesstoken`); shorter ones (`pin`, `key`, `pass`) only as words of their own, or
/// `spinner`, `monkey` and `passenger` would be secrets.
pub const SHORTEST_WORD_PART: usize = 5;

/// Whether `name` (a parameter's name, a field's label) says secret: one of its words (split
/// at `_`, `-`, `.`, spaces and lower-to-upper case changes) is a word such as `password`,
/// `token`, `key`.
pub fn is_secret_name(name: &str) -> bool {
    words(name).any(|word| SECRET_WORDS.contains(&word.as_str()))
}

/// Whether `word` (one lowercase word) is or holds a secret word: a whole one of any length,
/// or one of at least [`SHORTEST_WORD_PART`] letters inside it.
pub fn holds_secret_word(word: &str) -> bool {
    SECRET_WORDS.iter().any(|secret| {
        word == *secret || (secret.len() >= SHORTEST_WORD_PART && word.contains(secret))
    })
}

/// The lowercase words of a name: `apiKey` → `api`, `key`; `DB_PASSWORD` → `db`, `password`.
pub fn words(name: &str) -> impl Iterator<Item = String> + '_ {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            words.push(std::mem::take(&mut current));
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            words.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    words.push(current);
    words.into_iter().filter(|word| !word.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names_are_recognised_by_their_words() {
        for secret in [
            "password",
            "DB_PASSWORD",
            "apiKey",
            "api-key",
            "auth_token",
            "Secret",
            "pin",
        ] {
            assert!(is_secret_name(secret), "{secret}");
        }
        for plain in [
            "username",
            "keyboard_layout",
            "monkey",
            "spinner",
            "third",
            "passenger",
        ] {
            assert!(!is_secret_name(plain), "{plain}");
        }
    }

    #[test]
    fn long_secret_words_count_inside_a_word_and_short_ones_alone() {
        for word in ["newpassword", "accesstoken", "myapikey", "pin", "key"] {
            assert!(holds_secret_word(word), "{word}");
        }
        for word in ["spinner", "monkey", "passenger", "compass", "keyboard"] {
            assert!(!holds_secret_word(word), "{word}");
        }
    }
}
