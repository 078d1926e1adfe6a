//! Conversions shared by the gRPC services.

/// The wire name of a known enum value; empty for an unset or unknown one, which the domain then
/// rejects as it rejects any name it does not know.
pub fn enum_name(name: Option<&str>) -> String {
    name.filter(|name| !name.ends_with("_UNSPECIFIED")).unwrap_or_default().to_string()
}

/// A stored JSON value (`column` of the row `row_id`) read as the proto it holds; `None`, logged,
/// when it does not read (a bug where it was written), so that one bad row does not fail a listing.
pub fn read_json<T: serde::de::DeserializeOwned>(
    column: &str,
    row_id: uuid::Uuid,
    value: serde_json::Value,
) -> Option<T> {
    match serde_json::from_value(value) {
        Ok(read) => Some(read),
        Err(error) => {
            tracing::warn!(%row_id, column, %error, "stored JSON does not match the API shape");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_and_unknown_enum_values_have_no_name() {
        assert_eq!(enum_name(Some("in_app")), "in_app");
        assert_eq!(enum_name(Some("CHANNEL_TYPE_UNSPECIFIED")), "");
        assert_eq!(enum_name(None), "");
    }
}
