//! Test support: the proptest strategies the memory's property tests build their text from
//! (redaction, summary requests and answers). Each test module keeps its own lists of tricky
//! pieces; how pieces become text is written once here.

use std::ops::Range;

use proptest::prelude::*;

/// One of `tricky` (markers, tags, line breaks: what a parser must survive), or arbitrary text.
pub(crate) fn tricky_or_any(tricky: Vec<&'static str>) -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(tricky).prop_map(str::to_owned),
        any::<String>(),
    ]
}

/// Up to `count` pieces, each followed by one of `separators`, as one text.
pub(crate) fn separated(
    piece: impl Strategy<Value = String>,
    separators: Vec<&'static str>,
    count: Range<usize>,
) -> impl Strategy<Value = String> {
    let separator = prop::sample::select(separators);
    prop::collection::vec((piece, separator), count).prop_map(|pieces| {
        pieces
            .into_iter()
            .map(|(piece, separator)| piece + separator)
            .collect()
    })
}
