//! The one error every configuration check returns: which field is wrong, and why. The
//! machine configuration prefixes the field with its section (`cache.line`).

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidField {
    pub field: &'static str,
    pub reason: String,
}

impl InvalidField {
    /// `Err` of an invalid `field`, for `return invalid(...)` in checks.
    pub fn err<T>(field: &'static str, reason: impl Into<String>) -> Result<T, InvalidField> {
        Err(InvalidField { field, reason: reason.into() })
    }
}

impl fmt::Display for InvalidField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.reason)
    }
}

/// Deserializes a list of exactly `N` values into an array (serde's arrays ignore values past
/// the `N`th, which would drop a mistyped configuration value silently).
pub fn exactly<'de, D, T, const N: usize>(deserializer: D) -> Result<[T; N], D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    use serde::de::Error;
    let values: Vec<T> = serde::Deserialize::deserialize(deserializer)?;
    let len = values.len();
    values.try_into().map_err(|_| D::Error::invalid_length(len, &format!("a list of {N} values").as_str()))
}
