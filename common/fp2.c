/* fp2: being written */
