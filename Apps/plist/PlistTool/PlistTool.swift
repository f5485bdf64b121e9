// PlistTool (issue 7). Placeholder until the command lands.
