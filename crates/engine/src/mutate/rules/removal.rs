//! Tool Removal: a tool's registration taken out, and its routing with it (by its dialect:
//! `unroute.rs` for JavaScript).

use super::super::MutateError;
use super::super::dialect::dialect_of;
use super::super::splice::{item_range, statement_range};
use super::{Draft, with_bytes};
use mcpevol_core::inventory::{Span, Tool};

/// What Tool Removal found: the registration to take out.
pub(super) struct Removal<'t> {
    reg: &'t Span,
}

pub(super) fn check<'t>(tool: &'t Tool, all: &[Tool]) -> Result<Removal<'t>, &'static str> {
    let reg =
        (tool.sites.registration.as_ref()).ok_or("no registration site to remove was found")?;
    if all.len() < 2 {
        return Err("it is the server's only tool");
    }
    Ok(Removal { reg })
}

impl Draft<'_> {
    pub(super) fn removal(&mut self, plan: Removal, tool: &Tool) -> Result<String, MutateError> {
        self.remove(plan.reg)?;
        self.unroute(plan.reg, tool)?;
        Ok(format!(
            "Tool Removal: removed `{}`, its registration and its routing",
            tool.name
        ))
    }

    /// Takes every routing site of `tool` out, but a map entry that is itself its registration
    /// `reg` (gone with it).
    fn unroute(&mut self, reg: &Span, tool: &Tool) -> Result<(), MutateError> {
        for d in &tool.sites.routes {
            if reg.file == d.site.file
                && reg.bytes.0 <= d.site.bytes.0
                && d.site.bytes.1 <= reg.bytes.1
            {
                continue;
            }
            dialect_of(&d.site.file).remove_route(&mut self.e, self.root, d)?;
        }
        Ok(())
    }

    /// Takes out the registration `reg`: as an item of a list, or as a statement.
    fn remove(&mut self, reg: &Span) -> Result<(), MutateError> {
        let text = self.e.text(self.root, &reg.file)?;
        let region = &text[reg.bytes.0..reg.bytes.1];
        let after = text[reg.bytes.1..].trim_start();
        let (start, end) =
            if !region.trim_end().ends_with(';') && after.starts_with([',', ']', '}', ')']) {
                item_range(text, reg)
            } else {
                statement_range(text, reg)
            };
        self.e.replace(self.root, &with_bytes(reg, start, end), "")
    }
}
