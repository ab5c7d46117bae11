/* fp12: written under the foundation issue */
