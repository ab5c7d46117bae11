/* field: being written */
