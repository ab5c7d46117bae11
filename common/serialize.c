/* serialize: written under the foundation issue */
