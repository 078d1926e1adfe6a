//! Set-based writes through `unnest`: a batch is bound as one array per column and read as rows with
//! `unnest($1, $2, …)`, whether inserted (`INSERT … SELECT * FROM unnest(…)`) or joined to the rows it
//! updates (`UPDATE … FROM unnest(…)`). The statement's text is the same for every batch, so
//! diesel prepares it once per connection (its `QueryId` is static) and PostgreSQL plans a handful of
//! parameters. A multi-row `VALUES` insert is a new statement for every row count, parsed and planned
//! with one parameter per cell on every run: 56,000 for the 2,000 jobs of a 1,000-recipient fan-out page.

use diesel::pg::Pg;
use diesel::query_builder::AstPass;
use diesel::serialize::ToSql;
use diesel::sql_types::{Array, HasSqlType, Int4, Text};
use diesel::QueryResult;

/// Binds each column array in turn, separated by commas: the arguments of `unnest(…)` in a
/// `QueryFragment::walk_ast`. Each entry is `sql element type: vector`.
macro_rules! bind_arrays {
    ($out:ident; $($sql_type:ty: $column:expr),+ $(,)?) => {{
        let mut separator = "";
        $(
            $out.push_sql(separator);
            $out.push_bind_param::<diesel::sql_types::Array<$sql_type>, _>(&$column)?;
            separator = ", ";
        )+
        let _ = separator;
    }};
}
pub(crate) use bind_arrays;

/// Gives a batch statement (a struct with one lifetime, holding the column arrays) a static `QueryId`,
/// so that diesel caches its prepared statement: its text is the same for every batch. With the SQL
/// type of the rows it returns, also makes it a query to `load`.
macro_rules! static_query_id {
    ($statement:ident) => {
        impl diesel::query_builder::QueryId for $statement<'_> {
            type QueryId = $statement<'static>;
            const HAS_STATIC_QUERY_ID: bool = true;
        }
    };
    ($statement:ident, $rows:ty) => {
        $crate::db::unnest::static_query_id!($statement);

        impl diesel::query_builder::Query for $statement<'_> {
            type SqlType = $rows;
        }
    };
}
pub(crate) use static_query_id;

/// Binds `array` read at `index` (an SQL expression, such as the row's template): `($n)[<index>]`.
pub(crate) fn push_subscripted<'b, ST, U>(out: &mut AstPass<'_, 'b, Pg>, array: &'b U, index: &str) -> QueryResult<()>
where
    Pg: HasSqlType<ST>,
    U: ToSql<ST, Pg> + ?Sized,
{
    out.push_sql("(");
    out.push_bind_param::<ST, U>(array)?;
    out.push_sql(")[");
    out.push_sql(index);
    out.push_sql("]");
    Ok(())
}

/// A text list per row or per template (tags, channels, device tokens), all in one flat array: a
/// PostgreSQL array has one length for all its elements, so the lists cannot be the elements of one.
/// List `i` is the slice `flat[from[i]:to[i]]` (empty when `from` is past `to`). They travelled as JSON
/// lists, each turned into `text[]` by a subquery per row: most of why a trigger batch's statement took
/// 105 µs of PostgreSQL's time a one-recipient trigger instead of 78 (docs/performance.md).
pub(crate) struct TextLists<'a> {
    flat: Vec<&'a str>,
    /// Where each list starts in `flat`, from 1.
    pub from: Vec<i32>,
    /// Where each list ends in `flat`, inclusive.
    pub to: Vec<i32>,
}

impl<'a> TextLists<'a> {
    pub fn of(lists: impl ExactSizeIterator<Item = &'a [String]>) -> Self {
        let mut text_lists =
            Self { flat: Vec::new(), from: Vec::with_capacity(lists.len()), to: Vec::with_capacity(lists.len()) };
        for list in lists {
            let from =
                i32::try_from(text_lists.flat.len() + 1).expect("a batch's lists hold far fewer than 2^31 texts");
            text_lists.flat.extend(list.iter().map(String::as_str));
            text_lists.from.push(from);
            text_lists.to.push(from + list.len() as i32 - 1);
        }
        text_lists
    }

    /// List `at` (an SQL expression), its bounds read from the bound `from` and `to`:
    /// `($flat)[($from)[at]:($to)[at]]`.
    pub fn push_list<'b>(&'b self, out: &mut AstPass<'_, 'b, Pg>, at: &str) -> QueryResult<()> {
        out.push_sql("(");
        out.push_bind_param::<Array<Text>, _>(&self.flat)?;
        out.push_sql(")[");
        push_subscripted::<Array<Int4>, _>(out, &self.from, at)?;
        out.push_sql(":");
        push_subscripted::<Array<Int4>, _>(out, &self.to, at)?;
        out.push_sql("]");
        Ok(())
    }

    /// The list between the bounds `from` and `to`, SQL expressions (columns of an `unnest` that binds
    /// [`TextLists::from`] and [`TextLists::to`] with the rest of each row): `($flat)[from:to]`.
    pub fn push_slice<'b>(&'b self, out: &mut AstPass<'_, 'b, Pg>, from: &str, to: &str) -> QueryResult<()> {
        push_subscripted::<Array<Text>, _>(out, &self.flat, &format!("{from}:{to}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_text_list_is_a_slice_of_the_flat_array_and_an_empty_one_ends_before_it_starts() {
        let lists = [vec!["a".to_string(), "b".to_string()], vec![], vec!["c".to_string()], vec![]];
        let text_lists = TextLists::of(lists.iter().map(Vec::as_slice));
        assert_eq!(text_lists.flat, ["a", "b", "c"]);
        // PostgreSQL slices from 1, bounds included; `flat[3:2]` and `flat[4:3]` are empty arrays.
        assert_eq!(text_lists.from, [1, 3, 3, 4]);
        assert_eq!(text_lists.to, [2, 2, 3, 3]);
    }
}
