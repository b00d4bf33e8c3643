//! The columns of a [`TaskRow`](super::TaskRow), declared once for both
//! engines: every select of a task row (each engine's `task_columns!`, the
//! JSON array PostgreSQL builds for a detail's subtasks) and every reader
//! of one (by [`Column`], never by a bare number) are built from the one
//! list in [`task_row!`]. A column is added there, and the compiler then
//! asks for it in each reader (a [`TaskRow`](super::TaskRow) field not
//! set) or says nobody reads it (a [`Column`] never constructed).

/// The columns of a task row, in the order a select reads them: each as
/// its name in [`Column`], then the table's role and the column. The roles
/// are `task` (the task's own row), `board` (its channel), `assignee` and
/// `creator` (agents) and `parent` (the parent task's row); a select names
/// the alias of each:
///
/// - `task_row!(select ("t", "c", "a", "p", "cb"))`: the list as one
///   string literal, `"t.number, c.name, …"`, for `concat!`;
/// - `task_row!(enumerate ())`: the enum [`Column`] and [`COUNT`].
macro_rules! task_row {
    ($mode:ident $aliases:tt) => {
        $crate::runtime::store::columns::task_row! {@$mode $aliases
            Number: task.number,
            Board: board.name,
            ScopeId: task.scope_id,
            Title: task.title,
            Description: task.description,
            Status: task.status,
            Priority: task.priority,
            Assignee: assignee.handle,
            ParentNumber: parent.number,
            Labels: task.labels,
            Checklist: task.checklist,
            Urls: task.urls,
            Attachments: task.attachments,
            Blocker: task.blocker,
            SourceTarget: task.source_target,
            CreatedBy: creator.handle,
            CreatedAt: task.created_at,
            UpdatedAt: task.updated_at
        }
    };
    (@select $aliases:tt $first:ident: $first_role:ident.$first_column:ident
        $(, $name:ident: $role:ident.$column:ident)*) => {
        concat!(
            $crate::runtime::store::columns::task_row!(@alias $first_role $aliases),
            ".",
            stringify!($first_column)
            $(
                , ", ",
                $crate::runtime::store::columns::task_row!(@alias $role $aliases),
                ".",
                stringify!($column)
            )*
        )
    };
    (@enumerate () $($name:ident: $role:ident.$column:ident),*) => {
        /// A column of a task row by name: its position in every select of
        /// one (`Column::Title as usize`).
        #[derive(Debug, Clone, Copy)]
        pub(crate) enum Column {
            $($name),*
        }

        /// How many columns a task row has; what a select adds after them
        /// (a task's id, a list's score) is read from here on.
        pub(crate) const COUNT: usize = [$(stringify!($name)),*].len();
    };
    (@alias task ($task:literal, $board:literal, $assignee:literal, $parent:literal, $creator:literal)) => {
        $task
    };
    (@alias board ($task:literal, $board:literal, $assignee:literal, $parent:literal, $creator:literal)) => {
        $board
    };
    (@alias assignee ($task:literal, $board:literal, $assignee:literal, $parent:literal, $creator:literal)) => {
        $assignee
    };
    (@alias parent ($task:literal, $board:literal, $assignee:literal, $parent:literal, $creator:literal)) => {
        $parent
    };
    (@alias creator ($task:literal, $board:literal, $assignee:literal, $parent:literal, $creator:literal)) => {
        $creator
    };
}
pub(crate) use task_row;

task_row!(enumerate());
