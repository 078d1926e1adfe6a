//! Set-based inserts through `unnest`: a batch is bound as one array per column and inserted with
//! `INSERT … SELECT * FROM unnest($1, $2, …)`. The statement's text is the same for every batch, so
//! diesel prepares it once per connection (its `QueryId` is static) and PostgreSQL plans a handful of
//! parameters. A multi-row `VALUES` insert is a new statement for every row count, parsed and planned
//! with one parameter per cell on every run: 56,000 for the 2,000 jobs of a 1,000-recipient fan-out page.

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
