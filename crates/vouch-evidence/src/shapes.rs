//! Deserializers for values with more than one accepted shape: a string or an object, a list or
//! a single item, null or a value.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// Deserializes `null` as the type's default.
pub(crate) fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A value written either as a plain string or as an object; implemented by the types that
/// accept both.
pub(crate) trait FromStringOrMap: Sized {
    /// What the error message says is expected.
    const EXPECTING: &'static str;
    /// Builds the value from a plain string.
    fn from_string(s: String) -> Self;
    /// Builds the value from an object.
    fn from_map<'de, A: MapAccess<'de>>(map: A) -> Result<Self, A::Error>;
}

/// Deserializes a [`FromStringOrMap`] value.
pub(crate) fn string_or_map<'de, D: Deserializer<'de>, T: FromStringOrMap>(
    d: D,
) -> Result<T, D::Error> {
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: FromStringOrMap> Visitor<'de> for V<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(T::EXPECTING)
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<T, E> {
            Ok(T::from_string(s.to_owned()))
        }
        fn visit_string<E: de::Error>(self, s: String) -> Result<T, E> {
            Ok(T::from_string(s))
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::from_map(map)
        }
    }
    d.deserialize_any(V(std::marker::PhantomData))
}

/// A list of [`FromStringOrMap`] values; `null` is an empty list.
pub(crate) fn list_of_string_or_map<'de, D: Deserializer<'de>, T: FromStringOrMap>(
    d: D,
) -> Result<Vec<T>, D::Error> {
    struct Item<T>(T);
    impl<'de, T: FromStringOrMap> Deserialize<'de> for Item<T> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            string_or_map(d).map(Item)
        }
    }
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: FromStringOrMap> Visitor<'de> for V<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "a list of {}", T::EXPECTING)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Vec<T>, E> {
            Ok(Vec::new())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::new();
            while let Some(Item(item)) = seq.next_element::<Item<T>>()? {
                out.push(item);
            }
            Ok(out)
        }
    }
    d.deserialize_any(V(std::marker::PhantomData))
}

/// Deserializes a list of JSON values, accepting a single non-list value as a list of one and
/// `null` as an empty list.
pub(crate) fn list_or_one<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Vec<serde_json::Value>, D::Error> {
    Ok(match Option::<serde_json::Value>::deserialize(d)? {
        None => Vec::new(),
        Some(serde_json::Value::Array(items)) => items,
        Some(other) => vec![other],
    })
}
