//! `browser-bridge schema`: print a JSON Schema of the protocol crate.

use crate::args::SchemaArgs;
use crate::output::print_json;

/// Prints the action union (default), the envelope, or the flat tool schema.
pub(crate) fn schema(args: &SchemaArgs) {
    let schema = if args.envelope {
        browser_bridge_protocol::schema::envelope_schema()
    } else if args.tool {
        browser_bridge_protocol::schema::tool_schema()
    } else {
        browser_bridge_protocol::schema::action_schema()
    };
    print_json(&schema);
}
