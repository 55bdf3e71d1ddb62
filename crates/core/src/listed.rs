//! A tool as the running server lists it (`tools/list`). Readers go through its typed
//! accessors; the wire form is kept whole, so that records and `tools --json` carry exactly
//! what the server said (fields this version of MCP does not know included, in their order).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One entry of a server's tool list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ListedTool(Value);

/// What a missing field reads as: JSON `null`, as indexing a `Value` gives.
static NULL: Value = Value::Null;

impl ListedTool {
    /// Its name, when the server gave a string.
    pub fn name(&self) -> Option<&str> {
        self.0.get("name").and_then(Value::as_str)
    }

    /// Whether it is listed under `name`.
    pub fn is_named(&self, name: &str) -> bool {
        self.name() == Some(name)
    }

    /// Its description, when the server gave a string.
    pub fn description(&self) -> Option<&str> {
        self.0.get("description").and_then(Value::as_str)
    }

    /// Its input schema (`null` when it has none).
    pub fn input_schema(&self) -> &Value {
        self.0.get("inputSchema").unwrap_or(&NULL)
    }

    /// The input schema's properties, when it declares an object of them.
    pub fn properties(&self) -> Option<&Map<String, Value>> {
        self.input_schema()
            .get("properties")
            .and_then(Value::as_object)
    }

    /// The schema of parameter `name` (`null` when it does not declare one).
    pub fn property(&self, name: &str) -> &Value {
        self.properties().and_then(|p| p.get(name)).unwrap_or(&NULL)
    }

    /// The input schema's `required` list as listed (`null` when absent).
    pub fn required(&self) -> &Value {
        self.input_schema().get("required").unwrap_or(&NULL)
    }

    /// The whole entry, as the server listed it.
    pub fn as_value(&self) -> &Value {
        &self.0
    }
}

impl From<Value> for ListedTool {
    fn from(value: Value) -> Self {
        ListedTool(value)
    }
}

impl From<ListedTool> for Value {
    fn from(tool: ListedTool) -> Self {
        tool.0
    }
}

/// A list of entries written as JSON (tests, recorded lists).
pub fn listed(values: impl IntoIterator<Item = Value>) -> Vec<ListedTool> {
    values.into_iter().map(ListedTool::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_listed_tool_reads_its_fields_and_serialises_exactly_as_listed() {
        let wire = r#"{"name":"get","zeta":1,"inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},"description":"Gets one."}"#;
        let tool: ListedTool = serde_json::from_str(wire).unwrap();
        assert_eq!(tool.name(), Some("get"));
        assert!(tool.is_named("get") && !tool.is_named("put"));
        assert_eq!(tool.description(), Some("Gets one."));
        assert_eq!(tool.property("id"), &json!({"type": "string"}));
        assert_eq!(tool.property("nope"), &Value::Null);
        assert_eq!(tool.required(), &json!(["id"]));
        assert_eq!(serde_json::to_string(&tool).unwrap(), wire);
        let bare = ListedTool::from(json!({"name": 3}));
        assert_eq!((bare.name(), bare.input_schema()), (None, &Value::Null));
        assert!(bare.properties().is_none());
    }
}
