/* msm: written under the foundation issue */
