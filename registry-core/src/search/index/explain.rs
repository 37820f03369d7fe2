//! The words one tool matched for a query, each with where, how and how
//! much: the ranking's sums taken apart for one slot (see `rank`), for
//! [`Explanation`](crate::search::Explanation).

use super::super::explain::WordMatch;
use super::super::fields::{FIELDS, Field, K1, WEIGHT};
use super::super::query::Query;
use super::SearchIndex;
use super::rank::Variant;

impl SearchIndex {
    /// Per query word that the tool in `slot` matched, its best match (the
    /// one the ranking counted), in query order.
    pub(crate) fn word_matches(&self, query: &Query, slot: u32) -> Vec<WordMatch> {
        let terms: Vec<&str> = query
            .required_terms()
            .iter()
            .chain(query.optional_terms())
            .map(String::as_str)
            .collect();
        let avg = self.average_lengths();
        let mut variants: Vec<Variant> = Vec::new();
        let mut out = Vec::new();
        for term in &terms {
            let cap = self.term_variants(&terms, term, &mut variants);
            let mut best: Option<(f32, Variant, [u16; FIELDS])> = None;
            for v in &variants {
                let postings = &self.postings[v.term as usize];
                let Ok(at) = postings.binary_search_by_key(&slot, |p| p.doc) else {
                    continue;
                };
                let tf_of = postings[at].tf;
                let tf = self.field_tf(&tf_of, slot as usize, &avg);
                let c = v.weight * self.idf(v.term).min(cap) * tf * (K1 + 1.0) / (K1 + tf);
                if c > 0.0 && best.is_none_or(|(b, _, _)| c > b) {
                    best = Some((c, *v, tf_of));
                }
            }
            if let Some((score, v, tf_of)) = best {
                out.push(WordMatch {
                    query_word: (*term).to_owned(),
                    matched: self.term_text(v.term).to_owned(),
                    field: strongest_field(&tf_of),
                    how: v.kind.as_str(),
                    score,
                });
            }
        }
        out
    }

    /// The text of a term id (a walk of the dictionary: explaining is
    /// rare, and a reverse table would cost memory on every search).
    fn term_text(&self, id: u32) -> &str {
        self.dict
            .iter()
            .find(|(_, t)| **t == id)
            .map_or("", |(text, _)| text)
    }
}

/// The field whose occurrences weigh most, by the fields' weights (the
/// name before the server, the hint and the description on a tie).
fn strongest_field(tf_of: &[u16; FIELDS]) -> &'static str {
    const NAMES: [(Field, &str); FIELDS] = [
        (Field::Name, "name"),
        (Field::Server, "server"),
        (Field::Hint, "hint"),
        (Field::Description, "description"),
    ];
    NAMES
        .iter()
        .filter(|(f, _)| tf_of[*f as usize] > 0)
        .max_by(|(a, _), (b, _)| {
            let weigh = |f: &Field| WEIGHT[*f as usize] * f32::from(tf_of[*f as usize]);
            weigh(a)
                .total_cmp(&weigh(b))
                .then_with(|| (*b as usize).cmp(&(*a as usize)))
        })
        .map_or("description", |(_, name)| name)
}
