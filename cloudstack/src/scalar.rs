//! CloudStack's loosely typed scalars, read one way everywhere: an id or a name may come as a
//! string or a number, a count as a number or a numeric string, a flag as a bool or `"true"`.
//! Each function is a `deserialize_with` for a field of an answer's wire type; a value of
//! another shape (null, an object) reads as absent, never as an error that loses the answer.

use serde::{Deserialize, Deserializer};

/// One JSON scalar as CloudStack may send it.
#[derive(Deserialize)]
#[serde(untagged)]
enum Scalar {
    Text(String),
    Number(serde_json::Number),
    Flag(bool),
    Other(serde::de::IgnoredAny),
}

impl Scalar {
    /// The scalar as text: a string as it is, a number in decimal; `None` for anything else or
    /// an empty string.
    fn text(self) -> Option<String> {
        match self {
            Scalar::Text(text) if !text.is_empty() => Some(text),
            Scalar::Number(number) => Some(number.to_string()),
            _ => None,
        }
    }

    /// The scalar as a count: a non-negative integer or its decimal text.
    fn count(self) -> Option<u64> {
        match self {
            Scalar::Number(number) => number.as_u64(),
            Scalar::Text(text) => text.trim().parse().ok(),
            _ => None,
        }
    }
}

/// An id or name, string or number; empty when absent.
pub fn text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Scalar::deserialize(d)?.text().unwrap_or_default())
}

/// An optional id or address, string or number; `None` when absent or empty.
pub fn optional_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Scalar::deserialize(d)?.text())
}

/// A count, number or numeric string; 0 when absent.
pub fn count<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    Ok(Scalar::deserialize(d)?.count().unwrap_or(0))
}

/// A small count (CPUs), number or numeric string; 0 when absent or too large.
pub fn small_count<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    Ok(Scalar::deserialize(d)?
        .count()
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(0))
}

/// An optional size, number or numeric string; `None` when absent or not a number that fits.
pub fn optional_size<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    Ok(Scalar::deserialize(d)?
        .count()
        .and_then(|n| u32::try_from(n).ok()))
}

/// A flag: `true`, or the text `true` in any case; false otherwise.
pub fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(match Scalar::deserialize(d)? {
        Scalar::Flag(flag) => flag,
        Scalar::Text(text) => text.eq_ignore_ascii_case("true"),
        _ => false,
    })
}

/// A list of ids, each a string or a number; absent or empty entries left out.
pub fn ids<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Listed {
        Many(Vec<Scalar>),
        Other(serde::de::IgnoredAny),
    }
    Ok(match Listed::deserialize(d)? {
        Listed::Many(listed) => listed.into_iter().filter_map(Scalar::text).collect(),
        Listed::Other(_) => Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq, Eq)]
    struct Shapes {
        #[serde(default, deserialize_with = "super::text")]
        id: String,
        #[serde(default, deserialize_with = "super::optional_text")]
        address: Option<String>,
        #[serde(default, deserialize_with = "super::count")]
        size: u64,
        #[serde(default, deserialize_with = "super::optional_size")]
        max: Option<u32>,
        #[serde(default, deserialize_with = "super::flag")]
        enabled: bool,
        #[serde(default, deserialize_with = "super::ids")]
        vms: Vec<String>,
    }

    fn read(value: serde_json::Value) -> Shapes {
        serde_json::from_value(value).expect("any shape reads")
    }

    #[test]
    fn strings_and_numbers_read_alike() {
        let as_text = read(json!({
            "id": "7", "address": "10.0.0.1", "size": "3", "max": "5", "enabled": "TRUE",
            "vms": ["a", 7, ""]
        }));
        let as_numbers = read(json!({
            "id": 7, "address": "10.0.0.1", "size": 3, "max": 5, "enabled": true, "vms": ["a", 7]
        }));
        assert_eq!(as_text, as_numbers);
        assert_eq!(as_text.vms, ["a", "7"]);
    }

    #[test]
    fn absent_null_and_odd_shapes_read_as_absent() {
        let empty = Shapes {
            id: String::new(),
            address: None,
            size: 0,
            max: None,
            enabled: false,
            vms: Vec::new(),
        };
        assert_eq!(read(json!({})), empty);
        assert_eq!(
            read(json!({
                "id": null, "address": "", "size": -1, "max": 99999999999u64,
                "enabled": "yes", "vms": {"id": "a"}
            })),
            empty
        );
        assert_eq!(read(json!({"id": {"x": 1}, "size": "many"})), empty);
    }
}
