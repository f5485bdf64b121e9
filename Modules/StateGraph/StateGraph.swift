// StateGraph (issue 6). Placeholder until the module lands.
