/* pairing: written under the foundation issue */
