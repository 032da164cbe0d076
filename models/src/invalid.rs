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
